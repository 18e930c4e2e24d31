// The layout of the shared work table (src/run/work-table.ts): one row of Int32 cells per queue a
// node serves, in a SharedArrayBuffer every worker thread gets at start. The main thread writes
// the row's settings and its own count of jobs handed to threads; the threads claim and give back
// the row's running slots with Atomics (SlotClaims in workers/run-queue.ts), which keep each cell
// whole.

/** concurrency, busy (handed to threads: the main thread's count), active (1 while subscribed), running, starving. */
export const FIELDS = 5;
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
export const MAX_QUEUES = 1024;

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
