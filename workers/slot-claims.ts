// A worker thread's side of the shared work table: it claims one of a queue's running slots with a
// compare-and-swap before it starts a job of that queue and gives it back when the job ends, so a
// queue never runs more than its concurrency on this node, whichever threads run its jobs and
// without asking the main thread. Each claim is also counted under this thread's index in the
// claims buffer, so that when the thread dies the main thread gives back exactly what it held.
import { CONCURRENCY, FIELDS, MAX_QUEUES, RUNNING, STARVING } from './work-table-layout';
import { ClaimsViews, MAX_THREADS } from './claims-layout';

export class SlotClaims {
  /** This thread's index in the claims buffer (-1: none free, its claims are not tracked). */
  private readonly index: number = -1;

  constructor(
    readonly cells: Int32Array,
    private readonly claims: ClaimsViews | undefined,
    private readonly threadId: number,
  ) {
    if (!claims) return;
    for (let i = 0; i < MAX_THREADS; i++)
      if (Atomics.compareExchange(claims.owners, i, 0, threadId) === 0) {
        this.index = i;
        break;
      }
  }

  /** The cell a thread waits on for a slot of `row`: every give-back and change of the row notifies it. */
  static runningCell(row: number): number {
    return row * FIELDS + RUNNING;
  }

  /** True while a job this node took may start: its claim on its backup lists surely holds. */
  leaseHolds(): boolean {
    return !this.claims || process.hrtime.bigint() < Atomics.load(this.claims.lease, 0);
  }

  /** True when a job handed over in `generation` may still start: the node was not declared dead since. */
  current(generation: number | undefined): boolean {
    return generation === undefined || !this.claims || generation === Atomics.load(this.claims.generation, 0);
  }

  /** The concurrency of `row` now. */
  concurrency(row: number): number {
    return Atomics.load(this.cells, row * FIELDS + CONCURRENCY);
  }

  /** Takes `count` running slots of `row` (a chunk's: one per job) if that many are free; none otherwise. */
  tryClaim(row: number, count = 1): boolean {
    const cell = SlotClaims.runningCell(row);
    for (;;) {
      const running = Atomics.load(this.cells, cell);
      if (running + count > this.concurrency(row)) return false;
      if (Atomics.compareExchange(this.cells, cell, running, running + count) === running) break;
    }
    // After the claim: a thread dying between the two leaves a slot taken, never one too many.
    if (this.claims && this.index >= 0) Atomics.add(this.claims.held, this.index * MAX_QUEUES + row, count);
    return true;
  }

  /**
   * Says (`on`) or unsays that this thread's jobs of `row` have waited long for a slot; one thread
   * at a time says it. True when this thread's word stands.
   */
  starving(row: number, on: boolean): boolean {
    const cell = row * FIELDS + STARVING;
    if (on) return Atomics.compareExchange(this.cells, cell, 0, this.threadId) === 0;
    Atomics.compareExchange(this.cells, cell, this.threadId, 0);
    return false;
  }

  /** True when another thread's jobs of `row` have waited long for a slot. */
  othersStarve(row: number): boolean {
    const starving = Atomics.load(this.cells, row * FIELDS + STARVING);
    return starving !== 0 && starving !== this.threadId;
  }

  /** Gives back `count` slots of `row` and wakes the threads waiting for one. */
  release(row: number, count = 1): void {
    // Before the give-back, for the same reason as in tryClaim.
    if (this.claims && this.index >= 0) Atomics.sub(this.claims.held, this.index * MAX_QUEUES + row, count);
    const cell = SlotClaims.runningCell(row);
    Atomics.sub(this.cells, cell, count);
    Atomics.notify(this.cells, cell);
  }
}
