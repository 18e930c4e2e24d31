// Runs one job's handler in the calling thread and answers with a plain record. The piscina entry
// (thread-entry.ts) runs jobs with it on worker threads; nexq/testing runs the same function
// in-process, so a test runs a handler exactly the way a node does. Never imports Redis.
import { inspect } from 'node:util';
import type { JobPayload } from '../src/job/job';
import { countOf } from '../src/job/json-object';
import { readSeconds } from '../src/job/time';
import { handlerFrames } from './backtrace';
import { HandlerLoadError, JobContext, loadPerform } from './handler-loader';
import { JobOutcome, JobTask, ThrownError } from './protocol';
import type { QueueSlots } from './work-table-layout';
import { jobBatch, PostToMain } from './job-batch';

/** Optional hooks for callers that inspect a run (nexq/testing); a node passes none. */
export interface PerformObserver {
  /** Just before `perform` is called, with the very args array and context it gets. */
  starting?(args: unknown[], context: JobContext): void;
  /** What `perform` returned (awaited), when it did not throw. */
  returned?(value: unknown): void;
  /** What was thrown or rejected, before it becomes a ThrownError. */
  failed?(err: unknown): void;
}

export function toThrownError(value: unknown): ThrownError {
  if (value instanceof Error) {
    return {
      class: value.name || (value.constructor as { name?: string } | undefined)?.name || 'Error',
      message: value.message,
      backtrace: handlerFrames(value.stack),
      // Its handler failed to load (HANDLER_LOAD): nexq's error, not one the handler threw.
      ...(value instanceof HandlerLoadError ? { code: value.code } : {}),
    };
  }
  return { class: 'NonErrorThrown', message: `a non-Error was thrown: ${inspect(value, { depth: 2 })}` };
}

/** A job run outside a node (nexq/testing) runs alone. */
const ALONE: QueueSlots = { concurrency: 1, busy: 1, free: 0 };

/**
 * Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`. `slots` reads the
 * job's queue's row of the work table (a thread's; in-process, a job runs alone); `post` reaches
 * the main thread (for `this.batch`; absent in-process).
 */
export async function performTask(
  task: JobTask,
  observer: PerformObserver = {},
  slots: (row: number | undefined) => QueueSlots = () => ALONE,
  post?: PostToMain,
): Promise<JobOutcome> {
  try {
    // Decoded (checked) on the main thread before it came here.
    const job = JSON.parse(task.raw) as JobPayload;
    let args: unknown[] = job.args;
    if (task.activeJob) {
      const wrapped = args[0] as { arguments?: unknown } | undefined;
      if (!wrapped || !Array.isArray(wrapped.arguments))
        throw new TypeError('ActiveJob payload has no arguments array');
      args = wrapped.arguments;
    }
    const perform = await loadPerform(task.file);
    let nacked = false as boolean; // set by the handler's this.nack()
    const context: JobContext = {
      jid: job.jid,
      queue: job.queue,
      className: job.wrapped ?? job.class,
      retryCount: countOf(job.retry_count),
      enqueuedAt: readSeconds(job.enqueued_at),
      nacks: countOf(job.nacks),
      nack: () => void (nacked = true),
      slots: () => slots(task.slotsRow),
      batch: typeof job.bid === 'string' && job.bid !== '' ? jobBatch(job.bid, post) : undefined,
    };
    observer.starting?.(args, context);
    const value = await perform.apply(context, args);
    observer.returned?.(value);
    return nacked ? { ok: true, nack: true } : { ok: true };
  } catch (err) {
    observer.failed?.(err);
    return { ok: false, error: toThrownError(err) };
  }
}
