// A worker thread's local run queue: the jobs the node handed this thread ahead of a free slot.
// They stay in the node's backup list meanwhile, as any job taken does, so a crash loses none.
//
// When a job ends its slot goes straight to the next job of the same queue waiting here, started
// on the same tick without a word to the main thread; with none waiting here the slot is given
// back and the threads waiting for one are woken (Atomics.notify on the queue's running cell,
// which each waits on with Atomics.waitAsync). A job starts only while the node's lease holds
// (SlotClaims, below); until then it waits. The main thread can withdraw waiting jobs (its
// cancel, quiet, stop, unsubscribe, a lost lease): they never started, and go back to their queue.
// A chunk (performMany) is one entry that starts when it can claim one slot per job at once: it
// never holds some while it waits for the rest, so two chunks cannot each wait on the other's; one
// larger than its queue's concurrency now (lowered since the chunk formed) is withdrawn.
//
// SlotClaims is the thread's side of the shared work table: it claims one of a queue's running
// slots with a compare-and-swap before it starts a job of that queue and gives it back when the
// job ends, so a queue never runs more than its concurrency on this node, whichever threads run
// its jobs and without asking the main thread. Each claim is also counted under this thread's index in the
// claims buffer, so that when the thread dies the main thread gives back exactly what it held.
import { CONCURRENCY, FIELDS, MAX_QUEUES, RUNNING, STARVING } from './work-table-layout';
import { ClaimsViews, MAX_THREADS } from './claims-layout';

export interface LocalJob {
  id: number;
  /** A chunk's (performMany) ids, its first `id`: it starts holding one slot per job, all at once. */
  ids?: number[];
  /** Its queue's row in the work table; undefined: it takes no slot (an exhausted hook, a test). */
  row: number | undefined;
  /** The generation of the node's claim it was handed over in (workers/claims-layout.ts). */
  generation?: number;
  /** Starts its handler: called after the message saying it started is posted. */
  run(): void;
  /** Answers it as withdrawn: it never started. */
  withdraw(): void;
}

/** Atomics.waitAsync (Node 16+), which the ES2022 lib does not declare. */
type WaitAsync = (
  cells: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** How often a thread looks again while its node's lease has lapsed (a beat renews it). */
const LEASE_RECHECK_MS = 100;
/**
 * A waiting row is looked at again at least this often, should a notify be missed; jobs that have
 * waited longer than this say so (STARVING), and the other threads then give their freed slots
 * back to the table rather than to their own waiting jobs, so no thread's jobs wait for ever.
 */
const WAIT_RECHECK_MS = 50;

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

/** How many slots a job takes: one per job of a chunk. */
export function slotsOf(job: LocalJob): number {
  return job.ids?.length ?? 1;
}

export class RunQueue {
  private readonly waiting = new Map<number, LocalJob[]>();
  /** Rows whose running cell this thread waits on now. */
  private readonly watched = new Set<number>();
  /** Per waiting row, since when (performance.now()) it has had no slot. */
  private readonly waitingSince = new Map<number, number>();
  /** Rows this thread said it starves of. */
  private readonly starving = new Set<number>();
  private leaseTimer?: NodeJS.Timeout;
  private starts: LocalJob[] = [];

  /** `startsReady`: jobs are ready to start, to be taken with `takeStarts` on the coming flush. */
  constructor(
    private readonly claims: SlotClaims,
    private readonly startsReady: () => void,
  ) {}

  /** A job handed to this thread: it starts on the coming flush if a slot is free, or waits here. */
  admit(job: LocalJob): void {
    const { row } = job;
    if (!this.claims.current(job.generation)) {
      job.withdraw();
      return;
    }
    if (row === undefined) {
      this.ready(job);
      return;
    }
    if (slotsOf(job) > 1 && slotsOf(job) > this.claims.concurrency(row)) {
      job.withdraw();
      return;
    }
    const queue = this.waiting.get(row);
    if (queue) {
      queue.push(job);
      return;
    }
    if (this.claims.leaseHolds() && this.claims.tryClaim(row, slotsOf(job))) {
      this.ready(job);
      return;
    }
    this.waiting.set(row, [job]);
    this.waitingSince.set(row, performance.now());
    this.watch(row);
  }

  /** A job of `row` ended: its slots go to the next job waiting here, or back to the table. */
  ended(row: number | undefined, slots = 1): void {
    if (row === undefined) return;
    // Kept for the next job waiting here that may start and takes as many (checked first: a job
    // ahead of it that may not start is withdrawn), unless another thread's jobs have waited long.
    const next = this.claims.leaseHolds() && !this.claims.othersStarve(row) ? this.peek(row) : undefined;
    if (next && slotsOf(next) === slots) {
      this.shiftHead(row);
      this.ready(next);
    }
    // Its notify wakes this thread's own wait too: a chunk waiting here may now find all it needs.
    else this.claims.release(row, slots);
  }

  /** The jobs to start now; the caller posts that they started, then runs them. */
  takeStarts(): LocalJob[] {
    const starts = this.starts;
    this.starts = [];
    return starts;
  }

  /** Withdraws the waiting jobs `which` picks (all when absent); returns how many. */
  withdraw(which?: (job: LocalJob) => boolean): number {
    let count = 0;
    for (const [row, queue] of [...this.waiting]) {
      const keep = which ? queue.filter((job) => !which(job)) : [];
      for (const job of queue)
        if (!keep.includes(job)) {
          job.withdraw();
          count++;
        }
      if (keep.length > 0) this.waiting.set(row, keep);
      else this.stopWaiting(row);
    }
    return count;
  }

  /** Takes the job `peek` just returned, the head, off the jobs waiting for `row`. */
  private shiftHead(row: number): void {
    const queue = this.waiting.get(row);
    queue?.shift();
    if (queue?.length === 0) this.stopWaiting(row);
  }

  /**
   * The next job waiting for `row` that may still start, left in place; those ahead of it that may
   * not start (handed over in an older generation, a chunk now above the concurrency) are withdrawn.
   */
  private peek(row: number): LocalJob | undefined {
    const queue = this.waiting.get(row);
    while (queue && queue.length > 0) {
      const job = queue[0];
      const tooBig = slotsOf(job) > 1 && slotsOf(job) > this.claims.concurrency(row);
      if (this.claims.current(job.generation) && !tooBig) return job;
      queue.shift();
      job.withdraw();
    }
    if (queue?.length === 0) this.stopWaiting(row);
    return undefined;
  }

  private ready(job: LocalJob): void {
    this.starts.push(job);
    if (this.starts.length === 1) this.startsReady();
  }

  /** Waits for a slot of `row` to be given back (by any thread) or the row to change. */
  private watch(row: number): void {
    if (this.watched.has(row)) return;
    this.watched.add(row);
    const { cells } = this.claims;
    const cell = SlotClaims.runningCell(row);
    const wait = waitAsync(cells, cell, Atomics.load(cells, cell), WAIT_RECHECK_MS);
    const pump = () => this.pump(row);
    if (wait.async) wait.value.then(pump, pump);
    else queueMicrotask(pump);
  }

  /** Starts what waits for `row` while slots are free; waits again for the rest. */
  private pump(row: number): void {
    this.watched.delete(row);
    const queue = this.waiting.get(row);
    if (!queue) return;
    if (!this.claims.leaseHolds()) {
      this.leaseTimer ??= setTimeout(() => {
        this.leaseTimer = undefined;
        for (const waiting of [...this.waiting.keys()]) this.pump(waiting);
      }, LEASE_RECHECK_MS);
      return;
    }
    let served = false;
    for (let head = this.peek(row); head && this.claims.tryClaim(row, slotsOf(head)); head = this.peek(row)) {
      served = true;
      // The head checked above holds its slots now: taken as it is, never checked again.
      this.shiftHead(row);
      this.ready(head);
    }
    if (!this.waiting.has(row)) return;
    if (served) this.waitingSince.set(row, performance.now());
    this.sayStarving(row, performance.now() - (this.waitingSince.get(row) ?? 0) >= WAIT_RECHECK_MS);
    this.watch(row);
  }

  private stopWaiting(row: number): void {
    this.waiting.delete(row);
    this.waitingSince.delete(row);
    this.sayStarving(row, false);
  }

  private sayStarving(row: number, on: boolean): void {
    if (on === this.starving.has(row)) return;
    if (!on) {
      this.starving.delete(row);
      this.claims.starving(row, false);
    } else if (this.claims.starving(row, true)) this.starving.add(row);
  }
}
