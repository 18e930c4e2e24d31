// The `periodic` option's entries as the Periodic actor runs them: a stable id per entry (its name,
// or a short hash of what it enqueues), its parsed cron expression, and the jid of each tick.
import { createHash } from 'node:crypto';
import type { PeriodicSpec } from '../../config/defaults';
import { CronSchedule } from './cron';

/** What a periodic entry's `name` may hold: it becomes part of a Redis key and of every jid. */
export const PERIODIC_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export interface PeriodicEntry {
  /** The name, or a hash of cron, queue, class and args: the same on every node with the same config. */
  id: string;
  spec: PeriodicSpec;
  schedule: CronSchedule;
  args: unknown[];
}

/** The entry's id: its `name`, or the first 12 hex digits of a SHA-1 of cron, queue, class and args. */
export function periodicId(spec: PeriodicSpec): string {
  if (spec.name !== undefined) return spec.name;
  const cron = spec.cron.trim().split(/\s+/).join(' ');
  return createHash('sha1')
    .update(JSON.stringify([cron, spec.queue, spec.class, spec.args ?? []]))
    .digest('hex')
    .slice(0, 12);
}

/** The jid of one tick: every node computes the same, so a tick is recognisable wherever it ran. */
export function periodicJid(id: string, tickSeconds: number): string {
  return `periodic-${id}-${tickSeconds}`;
}

/** Entries of a validated `periodic` option, ready to run. */
export function resolvePeriodic(specs: PeriodicSpec[]): PeriodicEntry[] {
  return specs.map((spec) => ({ id: periodicId(spec), spec, schedule: new CronSchedule(spec.cron), args: spec.args ?? [] }));
}
