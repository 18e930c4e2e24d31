// The shared table of per-queue concurrency, busy and running counts: the one source of truth for
// slots. It lives in a SharedArrayBuffer (layout: workers/work-table-layout.ts) so worker threads
// use it too: each claims a running slot there before it starts a job (SlotClaims in
// workers/run-queue.ts), and a handler's `this.slots()` reads its queue's row. Names map to rows
// on the main thread, which alone subscribes queues and counts the jobs it hands to threads (busy:
// started or waiting there for a slot); each job's task carries its row. The threads also keep
// there how long each queue's jobs lately ran (`pace`).
import {
  ACTIVE,
  BUSY,
  CONCURRENCY,
  FIELDS,
  MAX_QUEUES,
  PACE,
  RUNNING,
  STARVING,
} from '../../workers/work-table-layout';

export { MAX_QUEUES };

export class WorkTable {
  readonly buffer: SharedArrayBuffer;
  private readonly cells: Int32Array;
  private readonly rows = new Map<string, number>();
  private readonly freeRows: number[] = [];

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(MAX_QUEUES * FIELDS * 4)) {
    this.buffer = buffer;
    this.cells = new Int32Array(buffer);
    for (let row = MAX_QUEUES - 1; row >= 0; row--) this.freeRows.push(row);
  }

  /** Subscribes `queue` with `concurrency` slots. A queue that still has running jobs keeps its row. */
  add(queue: string, concurrency: number): number {
    let row = this.rows.get(queue);
    if (row === undefined) {
      this.releaseIdleRows();
      row = this.freeRows.pop();
      if (row === undefined) throw new Error(`at most ${MAX_QUEUES} queues can be subscribed at once`);
      this.rows.set(queue, row);
      Atomics.store(this.cells, row * FIELDS + BUSY, 0);
      Atomics.store(this.cells, row * FIELDS + RUNNING, 0);
      Atomics.store(this.cells, row * FIELDS + STARVING, 0);
      Atomics.store(this.cells, row * FIELDS + PACE, -1);
    }
    Atomics.store(this.cells, row * FIELDS + CONCURRENCY, concurrency);
    Atomics.store(this.cells, row * FIELDS + ACTIVE, 1);
    // A concurrency raised: the threads holding jobs back for a slot look again.
    Atomics.notify(this.cells, row * FIELDS + RUNNING);
    return row;
  }

  /**
   * Unsubscribes `queue`; its row is reused once its jobs have settled and no handler of it runs on
   * a thread (a timed-out or cancelled job settles while its thread is still being terminated).
   */
  remove(queue: string): void {
    const row = this.rows.get(queue);
    if (row === undefined) return;
    Atomics.store(this.cells, row * FIELDS + ACTIVE, 0);
    this.releaseIfIdle(queue, row);
  }

  /** The queues subscribed now, with their concurrency, in the order they were first subscribed. */
  subscribed(): Array<{ name: string; concurrency: number }> {
    const queues: Array<{ name: string; concurrency: number }> = [];
    for (const [name, row] of this.rows) {
      if (Atomics.load(this.cells, row * FIELDS + ACTIVE) === 1)
        queues.push({ name, concurrency: Atomics.load(this.cells, row * FIELDS + CONCURRENCY) });
    }
    return queues;
  }

  isActive(queue: string): boolean {
    const row = this.rows.get(queue);
    return row !== undefined && Atomics.load(this.cells, row * FIELDS + ACTIVE) === 1;
  }

  row(queue: string): number | undefined {
    return this.rows.get(queue);
  }

  /** How long `queue`'s jobs lately ran on the threads, ms; undefined before one of them ended. */
  pace(queue: string): number | undefined {
    const row = this.rows.get(queue);
    const micros = row === undefined ? -1 : Atomics.load(this.cells, row * FIELDS + PACE);
    return micros < 0 ? undefined : micros / 1000;
  }

  free(queue: string): number {
    const row = this.rows.get(queue);
    if (row === undefined || Atomics.load(this.cells, row * FIELDS + ACTIVE) !== 1) return 0;
    return Math.max(
      0,
      Atomics.load(this.cells, row * FIELDS + CONCURRENCY) - Atomics.load(this.cells, row * FIELDS + BUSY),
    );
  }

  busy(queue: string): number {
    const row = this.rows.get(queue);
    return row === undefined ? 0 : Atomics.load(this.cells, row * FIELDS + BUSY);
  }

  concurrency(queue: string): number {
    const row = this.rows.get(queue);
    return row === undefined ? 0 : Atomics.load(this.cells, row * FIELDS + CONCURRENCY);
  }

  /** Jobs of `queue` handed to threads beyond its concurrency (prefetch: waiting there for a slot). */
  ahead(queue: string): number {
    const row = this.rows.get(queue);
    if (row === undefined) return 0;
    return Math.max(
      0,
      Atomics.load(this.cells, row * FIELDS + BUSY) - Atomics.load(this.cells, row * FIELDS + CONCURRENCY),
    );
  }

  /** Jobs of `queue` whose handlers run on threads now (the threads' count). */
  running(queue: string): number {
    const row = this.rows.get(queue);
    return row === undefined ? 0 : Atomics.load(this.cells, row * FIELDS + RUNNING);
  }

  /** Jobs handed to threads that have not started (waiting for a slot) or whose end is still on its way. */
  totalReserved(): number {
    let total = 0;
    for (const row of this.rows.values())
      total += Math.max(
        0,
        Atomics.load(this.cells, row * FIELDS + BUSY) - Atomics.load(this.cells, row * FIELDS + RUNNING),
      );
    return total;
  }

  totalBusy(): number {
    let total = 0;
    for (const row of this.rows.values()) total += Atomics.load(this.cells, row * FIELDS + BUSY);
    return total;
  }

  /** Takes `n` slots of `queue` (the caller checked `free`). */
  take(queue: string, n = 1): void {
    const row = this.rows.get(queue);
    if (row === undefined) throw new Error(`queue ${queue} is not in the work table`);
    Atomics.add(this.cells, row * FIELDS + BUSY, n);
  }

  /** Gives back one slot of `queue`. Returns true when the queue had no free slot before. */
  release(queue: string): boolean {
    const row = this.rows.get(queue);
    if (row === undefined) return false;
    const before = Atomics.sub(this.cells, row * FIELDS + BUSY, 1);
    this.releaseIfIdle(queue, row);
    return before >= Atomics.load(this.cells, row * FIELDS + CONCURRENCY);
  }

  /**
   * Frees the row of a queue left whose jobs have all settled and whose handlers have all ended. Not
   * before: a new subscription (of it or another queue) starts the row's running count from zero.
   */
  private releaseIfIdle(queue: string, row: number): void {
    if (
      Atomics.load(this.cells, row * FIELDS + ACTIVE) === 0 &&
      Atomics.load(this.cells, row * FIELDS + BUSY) <= 0 &&
      Atomics.load(this.cells, row * FIELDS + RUNNING) <= 0
    ) {
      this.rows.delete(queue);
      this.freeRows.push(row);
    }
  }

  /** Frees the rows of queues left whose last handler ended after their last job settled (its thread exited since). */
  private releaseIdleRows(): void {
    for (const [queue, row] of this.rows) this.releaseIfIdle(queue, row);
  }
}
