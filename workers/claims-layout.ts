// The layout of the threads' claims buffer, a SharedArrayBuffer every worker thread gets at start
// beside the work table:
//  - the lease deadline: until when (process.hrtime, ns) a job taken into this node's backup lists
//    may start (src/run/lease.ts says why); written by the main thread at each acknowledged beat;
//  - the generation of the node's claim: raised when the node learns it was declared dead, so a
//    job handed to a thread before that never starts (a reaper gave it to the other nodes);
//  - one owner cell per thread index, holding the threadId that took the index;
//  - per thread index and work-table row, how many running slots that thread holds: when a thread
//    dies, the main thread gives back exactly what it held (src/pool/thread-claims.ts).
import { MAX_QUEUES } from './work-table-layout';

/** Threads that can hold slots; a pool of more threads is refused by the config. */
export const MAX_THREADS = 64;
/** The lease cell before the first acknowledged beat: no reaper lists a node that never beat. */
export const LEASE_FOREVER = 0x7fffffffffffffffn;

const LEASE_BYTES = 8;
const GENERATION_BYTES = 8;
const OWNERS_AT = LEASE_BYTES + GENERATION_BYTES;
const OWNERS_BYTES = MAX_THREADS * 4;
export const CLAIMS_BYTES = OWNERS_AT + OWNERS_BYTES + MAX_THREADS * MAX_QUEUES * 4;

export interface ClaimsViews {
  /** [0]: the lease deadline, process.hrtime.bigint() ns. */
  lease: BigInt64Array;
  /** [0]: the generation of the node's claim on its backup lists. */
  generation: Int32Array;
  /** [index]: the threadId holding that index, 0 when free. */
  owners: Int32Array;
  /** [index * MAX_QUEUES + row]: slots of row held by the thread at index. */
  held: Int32Array;
}

export function claimsViews(buffer: SharedArrayBuffer): ClaimsViews {
  return {
    lease: new BigInt64Array(buffer, 0, 1),
    generation: new Int32Array(buffer, LEASE_BYTES, 1),
    owners: new Int32Array(buffer, OWNERS_AT, MAX_THREADS),
    held: new Int32Array(buffer, OWNERS_AT + OWNERS_BYTES, MAX_THREADS * MAX_QUEUES),
  };
}
