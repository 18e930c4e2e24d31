// A supervision tree as the dashboard shows it: each actor's state and its recent restarts. Each
// node publishes its own with its heartbeat (small: one entry per child, dynamic children counted).

export interface ActorSnapshot {
  /** The child's id in its supervisor (the root's name for the root). */
  id: string;
  /** running, starting, stopping, exited, or `down` while its supervisor has not restarted it. */
  state: string;
  /** Restarts in the last hour (at most RESTARTS_KEPT are remembered). */
  restarts: number;
  /** Epoch ms of the last restart. */
  lastRestart?: number;
  /** Why it last exited, clipped. */
  lastExit?: string;
  /** Supervisors: their strategy and children. */
  strategy?: string;
  children?: ActorSnapshot[];
  /** Dynamic supervisors: how many children run now (job runners are not listed one by one). */
  running?: number;
}

/** An actor that can describe itself and what it supervises. */
export interface Snapshotting {
  snapshot(): ActorSnapshot;
}

export function isSnapshotting(actor: unknown): actor is Snapshotting {
  return typeof (actor as Partial<Snapshotting> | null)?.snapshot === 'function';
}

export const RESTART_WINDOW_MS = 3600_000;
export const RESTARTS_KEPT = 100;
export const EXIT_TEXT_MAX = 200;

/** Restart times within the window, newest last, at most RESTARTS_KEPT, after one at `now`. */
export function recordRestart(times: number[], now: number = Date.now()): number[] {
  return [...times.filter((t) => t > now - RESTART_WINDOW_MS), now].slice(-RESTARTS_KEPT);
}

export function restartsWithinWindow(times: number[], now: number = Date.now()): number {
  return times.filter((t) => t > now - RESTART_WINDOW_MS).length;
}
