// Runs one job's handler in the calling thread and answers with a plain record. The piscina entry
// (thread-entry.ts) runs jobs with it on worker threads; nexq/testing runs the same function
// in-process, so a test runs a handler exactly the way a node does. Never imports Redis.
import { inspect } from 'node:util';
import type { JobPayload } from '../src/job/job';
import { countOf } from '../src/job/json-object';
import { readSeconds } from '../src/job/time';
import { handlerFrames } from './backtrace';
import { HandlerLoadError, JobContext, LoadedHandler, loadHandler } from './handler-loader';
import { checkedProgress, keepSecondsOf, resultJson, ResultTooLargeError } from './job-result';
import { inProcessSpan, otel } from './otel';
import { JobOutcome, JobTask, RetrySettings, ThrownError } from './protocol';
import { DEFAULT_RETRY_SETTINGS, runExhausted, verdictOnThread } from './retry-on-thread';
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
  /** A progress value the handler reported (checked: a number or small JSON). */
  progress?(jid: string, value: unknown): void;
}

export function toThrownError(value: unknown): ThrownError {
  if (value instanceof Error) {
    return {
      class: value.name || (value.constructor as { name?: string } | undefined)?.name || 'Error',
      message: value.message,
      backtrace: handlerFrames(value.stack),
      // Its handler failed to load (HANDLER_LOAD), or its result was refused (RESULT_TOO_LARGE):
      // nexq's error, not one the handler threw.
      ...(value instanceof HandlerLoadError || value instanceof ResultTooLargeError ? { code: value.code } : {}),
    };
  }
  return { class: 'NonErrorThrown', message: `a non-Error was thrown: ${inspect(value, { depth: 2 })}` };
}

/** A job run outside a node (nexq/testing) runs alone. */
const ALONE: QueueSlots = { concurrency: 1, busy: 1, free: 0 };

/**
 * Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`, with the verdict
 * of the handler's backoff function if it has one. `slots` reads the job's queue's row of the work
 * table (a thread's; in-process, a job runs alone); `post` reaches the main thread (for
 * `this.batch`; absent in-process). A task with `exhausted` runs that hook instead of `perform`.
 */
export async function performTask(
  task: JobTask,
  observer: PerformObserver = {},
  slots: (row: number | undefined) => QueueSlots = () => ALONE,
  post?: PostToMain,
  retry: RetrySettings = DEFAULT_RETRY_SETTINGS,
): Promise<JobOutcome> {
  let job: JobPayload | undefined;
  let handler: LoadedHandler | undefined;
  try {
    // Decoded (checked) on the main thread before it came here.
    job = JSON.parse(task.raw) as JobPayload;
    let args: unknown[] = job.args;
    if (task.activeJob) {
      const wrapped = args[0] as { arguments?: unknown } | undefined;
      if (!wrapped || !Array.isArray(wrapped.arguments))
        throw new TypeError('ActiveJob payload has no arguments array');
      args = wrapped.arguments;
    }
    const loadedJob = job;
    const loadedHandler = (handler = await loadHandler(task.file));
    let nacked = false as boolean; // set by the handler's this.nack()
    let pause: number | undefined; // set by the handler's this.rateLimited(seconds)
    const context: JobContext = {
      jid: job.jid,
      queue: job.queue,
      className: job.wrapped ?? job.class,
      retryCount: countOf(job.retry_count),
      enqueuedAt: readSeconds(job.enqueued_at),
      nacks: countOf(job.nacks),
      nack: () => void (nacked = true),
      rateLimited: (seconds: number) => {
        if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0)
          throw new TypeError(`rateLimited(seconds) needs a number of seconds > 0 (got ${inspect(seconds)})`);
        pause = seconds;
      },
      slots: () => slots(task.slotsRow),
      progress: (value: unknown) => observer.progress?.(loadedJob.jid, checkedProgress(value)),
      batch: typeof job.bid === 'string' && job.bid !== '' ? jobBatch(job.bid, post) : undefined,
    };
    if (task.exhausted) {
      await runExhausted(handler, args, context, task.exhausted);
      return { ok: true };
    }
    observer.starting?.(args, context);
    const run = () => loadedHandler.perform.apply(context, args);
    const value = await (otel() ? inProcessSpan(loadedJob, context.className, run) : run());
    observer.returned?.(value);
    if (pause !== undefined) return { ok: true, rateLimited: pause };
    if (nacked) return { ok: true, nack: true };
    // Kept only when asked (the job's keep_result, the handler's keepResult): otherwise nothing more.
    const keep = keepSecondsOf(loadedJob.keep_result, loadedHandler.keepResult);
    return keep > 0 ? { ok: true, result: { json: resultJson(value, context.className), ttl: keep } } : { ok: true };
  } catch (err) {
    observer.failed?.(err);
    const verdict = job && !task.exhausted ? await verdictOnThread(handler, job, err, retry) : {};
    return { ok: false, error: toThrownError(err), ...verdict };
  }
}
