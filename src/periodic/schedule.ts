// The `periodic` option's entries as the Periodic actor runs them: a stable id per entry (its name,
// or a short hash of what it enqueues), its parsed cron expression, and the jid of each tick.
import type { PeriodicSpec } from '../../config/defaults';
import { cronIn, Ticks } from '../../config/cron-zone';
import { periodicId } from '../../config/periodic-id';

export interface PeriodicEntry {
  /** The name, or a hash of cron, queue, class and args: the same on every node with the same config. */
  id: string;
  /** Names its state key (the last tick enqueued): the id, or for a schedule set at run time its version. */
  state: string;
  spec: PeriodicSpec;
  /** Its state key is written and removed with it (a schedule set at run time): none means it went. */
  kept?: boolean;
  schedule: Ticks;
  args: unknown[];
}

/** The jid of one tick: every node computes the same, so a tick is recognisable wherever it ran. */
export function periodicJid(id: string, tickSeconds: number): string {
  return `periodic-${id}-${tickSeconds}`;
}

/** Entries of a validated `periodic` option, ready to run. */
export function resolvePeriodic(specs: PeriodicSpec[]): PeriodicEntry[] {
  return specs.map((spec) => ({
    id: periodicId(spec),
    state: periodicId(spec),
    spec,
    schedule: cronIn(spec.cron, spec.tz),
    args: spec.args ?? [],
  }));
}
