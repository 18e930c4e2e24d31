// What the main thread and a worker thread say to each other: plain, structured-clonable records.
import type { Dialect } from '../config/defaults';
import type { NexqErrorCode } from '../config/nexq-error';
import type { KeptResult } from './job-result';
import type { RetryVerdict } from '../src/job/retry-policy';
import type { MessagePort } from 'node:worker_threads';

/** One job for a thread: the raw payload as fetched, and the module the main thread chose for it. */
export interface JobTask {
  raw: string;
  /** Absolute path of the handler module, picked from the registry by class name on the main thread. */
  file: string;
  /** ActiveJob's wrapper: the handler gets `args[0].arguments` instead of `args`. */
  activeJob?: boolean;
  /** Set when the job has a timeout: the thread says `{ type: STARTED, id }` as it starts the job. */
  id?: number;
  /** Its queue's row in the work table (ThreadData), for the handler's `this.slots()`. */
  slotsRow?: number;
  /** Set to run the module's `exhausted(args, error)` hook with this error instead of `perform`. */
  exhausted?: ThrownError;
}

/** The message a thread posts when it starts a job that has an id (its timeout starts then). */
export const STARTED = 'nexq:started';

/** The message a thread posts as it starts a batch: `{ type: BATCH, ids, threadId }` (to stop one job's thread). */
export const BATCH = 'nexq:batch';

/** The message a thread posts as each job of a batch finishes: `{ type: DONE, id, outcome }`. */
export const DONE = 'nexq:done';

/** The message a thread posts when a handler reports progress: `{ type: PROGRESS, jid, value }`. */
export const PROGRESS = 'nexq:progress';
/**
 * The jobs of a thread that finished in one turn, in one message: `{ type: DONE_MANY, ids, outcomes }`
 * (one message per job costs the main thread a message event each). DONE is the per-job fallback.
 */
export const DONE_MANY = 'nexq:done-many';

/**
 * The message a handler's `this.batch.enqueue…` posts: `{ type: ENQUEUE, bid, jobs, port }`; the
 * main thread enqueues the jobs into batch `bid` and answers on `port` with an EnqueueReply.
 */
export const ENQUEUE = 'nexq:enqueue';

export type EnqueueReply = { ok: true; jids: string[] } | { ok: false; error: { class: string; message: string } };

/** What a thread posts to the main thread (a handler may post values of its own besides). */
export type ThreadMessage =
  | { type: typeof PROGRESS; jid: string; value: unknown }
  | { type: typeof STARTED; id: number }
  | { type: typeof BATCH; ids: number[]; threadId: number }
  | { type: typeof DONE; id: number; outcome: JobOutcome }
  | { type: typeof DONE_MANY; ids: number[]; outcomes: JobOutcome[] }
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
 * its thread was stopped to cancel another job.
 */
export type JobOutcome =
  /** `result`: the return value to keep, when the job or its handler asked for it. */
  | { ok: true; nack?: true; rateLimited?: number; result?: KeptResult }
  | {
      ok: false;
      error: ThrownError;
      stopped?: 'cancelled' | 'interrupted';
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
  /** The work table's buffer (see src/run/work-table.ts), readable from threads. */
  workTable: SharedArrayBuffer;
  /** The absolute path of the `threadSetup` module, imported once before the thread's first job. */
  setup?: string;
  retry?: RetrySettings;
}
