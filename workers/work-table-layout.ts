// The layout of the shared work table (src/run/work-table.ts): one row of Int32 cells per queue a
// node serves, in a SharedArrayBuffer every worker thread gets at start. The main thread writes
// the row's settings and its own count of jobs handed to threads; the threads claim and give back
// the row's running slots with Atomics (SlotClaims in workers/run-queue.ts), which keep each cell
// whole, and keep the pace of the queue's jobs.

/**
 * concurrency, busy (handed to threads: the main thread's count), active (1 while subscribed),
 * running, starving, pace.
 */
export const FIELDS = 6;
export const CONCURRENCY = 0;
/** Jobs of the queue the main thread handed to its threads and has not heard the end of. */
export const BUSY = 1;
export const ACTIVE = 2;
/** Jobs of the queue whose handler runs on a thread now: claimed by threads, never above CONCURRENCY. */
export const RUNNING = 3;
/**
 * The threadId of a thread whose jobs of the queue have waited long for a slot (0: none): the
 * other threads give their freed slots back to the table rather than keep them for their own.
 */
export const STARVING = 4;
/**
 * How long the queue's jobs lately ran on the threads, µs: a moving average each thread updates as
 * one of its jobs ends (two threads may overwrite each other's update: an estimate). -1: none ended
 * yet. The main thread keeps more jobs ahead of a queue whose jobs end quicker than a refill
 * (src/fetch/served-queues.ts).
 */
export const PACE = 5;
export const MAX_QUEUES = 1024;

/** Weight of the newest run in the pace: the last few dozen runs count. */
const PACE_WEIGHT = 1 / 16;

/** A job of row `row` ran `micros` on its thread. */
export function recordPace(cells: Int32Array, row: number, micros: number): void {
  const at = row * FIELDS + PACE;
  const sample = Math.min(Math.round(micros), 0x7fffffff);
  const mean = Atomics.load(cells, at);
  Atomics.store(cells, at, mean < 0 ? sample : Math.round(mean + (sample - mean) * PACE_WEIGHT));
}

/** One queue's slots on this node, as a handler reads them (`this.slots()`). */
export interface QueueSlots {
  concurrency: number;
  /** Jobs of the queue running on this node now, this one included. */
  busy: number;
  free: number;
}

/** Reads row `row` of the table in `cells`. */
export function readSlots(cells: Int32Array, row: number): QueueSlots {
  const concurrency = Atomics.load(cells, row * FIELDS + CONCURRENCY);
  const busy = Atomics.load(cells, row * FIELDS + RUNNING);
  return { concurrency, busy, free: Math.max(0, concurrency - busy) };
}
