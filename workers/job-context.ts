// What a handler's `this` is for one job (JobContext), and what its run answers when it returns:
// shared by `perform` (workers/perform-task.ts) and `performMany` (workers/perform-chunk.ts), so
// a job of a chunk reads and asks exactly what a single job does.
import { inspect } from 'node:util';
import type { JobPayload } from '../src/job/job';
import { countOf } from '../src/job/json-object';
import { readSeconds } from '../src/job/time';
import type { JobContext, LoadedHandler } from './handler-loader';
import { checkedProgress, keepSecondsOf, resultJson } from './job-result';
import type { JobOutcome, JobTask } from './protocol';
import type { QueueSlots } from './work-table-layout';
import { jobBatch, PostToMain } from './job-batch';
import type { PerformObserver } from './perform-observer';

/** A job run outside a node (nexq/testing) runs alone. */
export const ALONE: QueueSlots = { concurrency: 1, busy: 1, free: 0 };

/** What the handler asked of the run through its context (`nack`, `rateLimited`). */
export interface Asked {
  nacked: boolean;
  pause?: number;
}

/** The job's args as its handler gets them (ActiveJob's wrapper opened). */
export function argsOf(task: JobTask, job: JobPayload): unknown[] {
  if (!task.activeJob) return job.args;
  const wrapped = job.args[0] as { arguments?: unknown } | undefined;
  if (!wrapped || !Array.isArray(wrapped.arguments)) throw new TypeError('ActiveJob payload has no arguments array');
  return wrapped.arguments;
}

/** The job's context (`this` of `perform`), and what its calls of `nack` and `rateLimited` asked. */
export function jobContextOf(
  task: JobTask,
  job: JobPayload,
  observer: PerformObserver,
  slots: (row: number | undefined) => QueueSlots,
  post: PostToMain | undefined,
): { context: JobContext; asked: Asked } {
  const asked: Asked = { nacked: false };
  const context: JobContext = {
    jid: job.jid,
    queue: job.queue,
    className: job.wrapped ?? job.class,
    retryCount: countOf(job.retry_count),
    enqueuedAt: readSeconds(job.enqueued_at),
    nacks: countOf(job.nacks),
    nack: () => void (asked.nacked = true),
    rateLimited: (seconds: number) => {
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0)
        throw new TypeError(`rateLimited(seconds) needs a number of seconds > 0 (got ${inspect(seconds)})`);
      asked.pause = seconds;
    },
    slots: () => slots(task.slotsRow),
    progress: (value: unknown) => observer.progress?.(job.jid, checkedProgress(value)),
    batch: typeof job.bid === 'string' && job.bid !== '' ? jobBatch(job.bid, post) : undefined,
  };
  return { context, asked };
}

/** A run that returned `value`: nacked, rate limited, or done, its result kept when asked (or ResultTooLargeError). */
export function successOf(
  value: unknown,
  job: JobPayload,
  handler: LoadedHandler,
  asked: Asked,
  className: string,
): JobOutcome {
  if (asked.pause !== undefined) return { ok: true, rateLimited: asked.pause };
  if (asked.nacked) return { ok: true, nack: true };
  // Kept only when asked (the job's keep_result, the handler's keepResult): otherwise nothing more.
  const keep = keepSecondsOf(job.keep_result, handler.keepResult);
  return keep > 0 ? { ok: true, result: { json: resultJson(value, className), ttl: keep } } : { ok: true };
}
