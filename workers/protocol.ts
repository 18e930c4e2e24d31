// What the main thread and a worker thread say to each other: plain, structured-clonable records.
import type { Dialect } from '../config/defaults';
import type { NexqErrorCode } from '../config/nexq-error';
import type { KeptResult } from './job-result';
import type { RetryVerdict } from '../src/job/retry-policy';
import type { MessagePort } from 'node:worker_threads';
import type { ChunkSettings } from './chunk-settings';

/** One job for a thread: the raw payload as fetched, and the module the main thread chose for it. */
export interface JobTask {
  raw: string;
  /** Absolute path of the handler module, picked from the registry by class name on the main thread. */
  file: string;
  /** ActiveJob's wrapper: the handler gets `args[0].arguments` instead of `args`. */
  activeJob?: boolean;
  /** Its id in the pool: the thread names it in its TURN messages (accepted, started, ended). */
  id?: number;
  /** Its queue's row in the work table (ThreadData): the slot it claims, and the handler's `this.slots()`. */
  slotsRow?: number;
  /** The generation of the node's claim it was handed over in: a later one means it must not start. */
  generation?: number;
  /** Set to run the module's `exhausted(args, error)` hook with this error instead of `perform`. */
  exhausted?: ThrownError;
  /** Its handler's `performMany` chunk settings: the main thread gathers it into a chunk (src/pool/chunk-former.ts). */
  chunk?: ChunkSettings;
}

/**
 * What a thread says in one turn, in one message: `started`, the jobs whose handlers start right
 * after this message (a job waits in the thread's run queue until a slot is free:
 * workers/run-queue.ts), and the outcomes of the jobs that ended (`ids`, `outcomes`). DONE is the
 * per-job fallback for an outcome that cannot be cloned.
 */
export const TURN = 'nexq:turn';

/** The message a thread posts for one job's outcome: `{ type: DONE, id, outcome }`. */
export const DONE = 'nexq:done';

/** The message a handler posts when it reports progress: `{ type: PROGRESS, jid, value }`. */
export const PROGRESS = 'nexq:progress';

/**
 * The message a thread posts as it starts: `{ type: CONTROL, threadId, port }`, the port on which
 * the main thread sends it ControlMessages: the jobs to run (without a timeout: a job with one is
 * a piscina task of its own, so its thread can be stopped) and the withdrawals.
 */
export const CONTROL = 'nexq:control';

/** What the main thread asks of a thread on its control port. */
export type ControlMessage =
  /** Run these jobs (each as soon as it holds a slot of its queue). */
  | { type: 'run'; tasks: Array<JobTask & { id: number }> }
  /** Run these jobs of one class and queue in one `performMany` call, once one slot per job is free. */
  | { type: 'runChunk'; tasks: Array<JobTask & { id: number }> }
  /** Withdraw the waiting jobs with these ids, or of these work-table rows, or all when neither is set. */
  | { type: 'withdraw'; ids?: number[]; rows?: number[] };

/**
 * The message a handler's `this.batch.enqueue…` posts: `{ type: ENQUEUE, bid, jobs, port }`; the
 * main thread enqueues the jobs into batch `bid` and answers on `port` with an EnqueueReply.
 */
export const ENQUEUE = 'nexq:enqueue';

export type EnqueueReply = { ok: true; jids: string[] } | { ok: false; error: { class: string; message: string } };

/** What a thread posts to the main thread (a handler may post values of its own besides). */
export type ThreadMessage =
  | { type: typeof PROGRESS; jid: string; value: unknown }
  | {
      type: typeof TURN;
      threadId: number;
      started?: number[];
      ids?: number[];
      outcomes?: JobOutcome[];
    }
  | { type: typeof DONE; id: number; outcome: JobOutcome }
  | { type: typeof CONTROL; threadId: number; port: MessagePort }
  | { type: typeof ENQUEUE; bid: string; jobs: unknown[]; port: MessagePort };

export interface ThrownError {
  class: string;
  message: string;
  backtrace?: string[];
  /** A nexq error's code (docs/errors.md): set when nexq, not the handler, ended the run. */
  code?: NexqErrorCode;
}

/**
 * `nack`: the handler asked for the job to be put back in its queue and run again later.
 * `rateLimited`: the handler said the remote side throttles it, for that many seconds: the job goes
 * back to the head of its queue, and its queue (or rate-limited class) pauses on every node.
 * `stopped`: the job did not fail by itself: it was cancelled on request, or interrupted because
 * its thread was stopped to cancel another job, or withdrawn from its thread's run queue before
 * it started (it goes back to its queue).
 */
export type JobOutcome =
  /** `result`: the return value to keep, when the job or its handler asked for it. */
  | { ok: true; nack?: true; rateLimited?: number; result?: KeptResult }
  | {
      ok: false;
      error: ThrownError;
      stopped?: 'cancelled' | 'interrupted' | 'withdrawn';
      /** The verdict of the handler's backoff function, when it has one and retries are left. */
      retryIn?: RetryVerdict;
      /** Why the backoff function gave no verdict (it threw, or answered nonsense): logged. */
      retryProblem?: string;
    };

/** The node's retry defaults a thread needs to know whether a failure has retries left. */
export interface RetrySettings {
  dialect: Dialect;
  maxRetries: number;
}

/** Data every thread gets at start (piscina's workerData). */
export interface ThreadData {
  /** The work table's buffer (see src/run/work-table.ts): threads claim running slots in it. */
  workTable: SharedArrayBuffer;
  /** The claims buffer (workers/claims-layout.ts): the lease deadline and each thread's claims. */
  claims?: SharedArrayBuffer;
  /** The absolute path of the `threadSetup` module, imported once before the thread's first job. */
  setup?: string;
  retry?: RetrySettings;
}
