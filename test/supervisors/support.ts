// Helpers for supervisor tests: child specs that start Probe actors logging into a shared array.
import { Actor } from '../../src/runtime';
import { ChildSpec, RestartType, Supervisor } from '../../supervisors/supervisor';
import { Probe, ProbeOptions } from '../runtime/support';

export interface ProbeChildOptions extends ProbeOptions {
  restart?: RestartType;
  shutdownMs?: number;
}

/** A child spec whose child is a Probe labelled `id`, logging into `log`. */
export function probeChild(id: string, log: string[], options: ProbeChildOptions = {}): ChildSpec {
  const { restart, shutdownMs, ...probe } = options;
  const spec: ChildSpec = { id, start: () => Actor.start(new Probe({ label: id, log, ...probe })) };
  if (restart) spec.restart = restart;
  if (shutdownMs !== undefined) spec.shutdownMs = shutdownMs;
  return spec;
}

/** Crashes `probe` with `error` and waits until it has exited. */
export async function crash(probe: Probe, error: unknown = new Error('boom')): Promise<void> {
  probe.cast({ type: 'crash', error });
  await probe.exited;
}

/**
 * Waits until the supervisor has handled every message queued so far (e.g. the DOWN of a child
 * that just exited, and the restarts it caused): a call is answered only after them.
 */
export async function settled(sup: Supervisor): Promise<void> {
  await sup.call({ type: 'which_children' });
}

export function child(sup: Supervisor, id: string): Probe {
  const actor = sup.child<Probe>(id);
  if (!actor) throw new Error(`no running child ${id}`);
  return actor;
}
