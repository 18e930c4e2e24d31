// The layout of the shared work table (src/run/work-table.ts): one row of Int32 cells per queue a
// node serves, in a SharedArrayBuffer every worker thread gets at start. The main thread alone
// writes it; any thread reads a row lock-free with Atomics, which keep each cell whole.

export const FIELDS = 3; // concurrency, busy, active (1 while subscribed)
export const CONCURRENCY = 0;
export const BUSY = 1;
export const ACTIVE = 2;
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
  const busy = Atomics.load(cells, row * FIELDS + BUSY);
  return { concurrency, busy, free: Math.max(0, concurrency - busy) };
}
