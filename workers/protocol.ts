// What the main thread and a worker thread say to each other: plain, structured-clonable records.
import type { NexqErrorCode } from '../config/nexq-error';
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
}

/** The message a thread posts when it starts a job that has an id (its timeout starts then). */
export const STARTED = 'nexq:started';

/** The message a thread posts as it starts a batch: `{ type: BATCH, ids, threadId }` (to stop one job's thread). */
export const BATCH = 'nexq:batch';

/** The message a thread posts as each job of a batch finishes: `{ type: DONE, id, outcome }`. */
export const DONE = 'nexq:done';

/**
 * The message a handler's `this.batch.enqueue…` posts: `{ type: ENQUEUE, bid, jobs, port }`; the
 * main thread enqueues the jobs into batch `bid` and answers on `port` with an EnqueueReply.
 */
export const ENQUEUE = 'nexq:enqueue';

export type EnqueueReply = { ok: true; jids: string[] } | { ok: false; error: { class: string; message: string } };

/** What a thread posts to the main thread (a handler may post values of its own besides). */
export type ThreadMessage =
  | { type: typeof STARTED; id: number }
  | { type: typeof BATCH; ids: number[]; threadId: number }
  | { type: typeof DONE; id: number; outcome: JobOutcome }
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
 * `stopped`: the job did not fail by itself: it was cancelled on request, or interrupted because
 * its thread was stopped to cancel another job.
 */
export type JobOutcome =
  { ok: true; nack?: true } | { ok: false; error: ThrownError; stopped?: 'cancelled' | 'interrupted' };

/** Data every thread gets at start (piscina's workerData). */
export interface ThreadData {
  /** The work table's buffer (see src/run/work-table.ts), readable from threads. */
  workTable: SharedArrayBuffer;
}
