// The main thread's side of the threads' claims buffer (workers/claims-layout.ts):
//  - it publishes the lease: until when a job taken into this node's backup lists may start on a
//    thread (src/run/lease.ts), on process.hrtime, the one monotonic clock every thread reads,
//    and the generation of that claim, raised when the node learns it was declared dead;
//  - when a thread dies (a cancel, process.exit, out of memory), it gives back the running slots
//    that thread held in the work table, and wakes the threads waiting for them.
import { CLAIMS_BYTES, claimsViews, ClaimsViews, LEASE_FOREVER, MAX_THREADS } from '../../workers/claims-layout';
import { FIELDS, MAX_QUEUES, RUNNING, STARVING } from '../../workers/work-table-layout';

export class ThreadClaims {
  readonly buffer = new SharedArrayBuffer(CLAIMS_BYTES);
  private readonly views: ClaimsViews = claimsViews(this.buffer);
  private readonly table: Int32Array;

  constructor(workTable: SharedArrayBuffer) {
    this.table = new Int32Array(workTable);
    Atomics.store(this.views.lease, 0, LEASE_FOREVER);
  }

  /** Jobs may start on threads until `performanceMs` (performance.now() of this thread). */
  leaseUntil(performanceMs: number): void {
    const left = BigInt(Math.round((performanceMs - performance.now()) * 1e6));
    Atomics.store(this.views.lease, 0, process.hrtime.bigint() + left);
    // A lease renewed after it lapsed: the threads holding jobs back look again.
    for (let row = 0; row < MAX_QUEUES; row++) Atomics.notify(this.table, row * FIELDS + RUNNING);
  }

  /** The generation of the node's claim on its backup lists, as jobs handed over now carry it. */
  get generation(): number {
    return Atomics.load(this.views.generation, 0);
  }

  /** The node was declared dead: no job handed over before now starts (a reaper gave them away). */
  newGeneration(): void {
    Atomics.add(this.views.generation, 0, 1);
  }

  /** The thread `threadId` is gone: the slots it held are free again, and its word that it starved. */
  threadGone(threadId: number): void {
    for (let row = 0; row < MAX_QUEUES; row++)
      Atomics.compareExchange(this.table, row * FIELDS + STARVING, threadId, 0);
    const { owners, held } = this.views;
    for (let index = 0; index < MAX_THREADS; index++) {
      if (Atomics.load(owners, index) !== threadId) continue;
      for (let row = 0; row < MAX_QUEUES; row++) {
        const slots = Atomics.exchange(held, index * MAX_QUEUES + row, 0);
        if (slots === 0) continue;
        Atomics.sub(this.table, row * FIELDS + RUNNING, slots);
        Atomics.notify(this.table, row * FIELDS + RUNNING);
      }
      Atomics.store(owners, index, 0);
    }
  }
}
