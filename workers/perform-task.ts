// Runs one job's handler in the calling thread and answers with a plain record. The piscina entry
// (thread-entry.ts) runs jobs with it on worker threads; nexq/testing runs the same function
// in-process, so a test runs a handler exactly the way a node does. Never imports Redis.
import type { JobPayload } from '../src/job/job';
import { LoadedHandler, loadHandler } from './handler-loader';
import { inProcessSpan, otel } from './otel';
import type { JobOutcome, JobTask, RetrySettings } from './protocol';
import { DEFAULT_RETRY_SETTINGS, runExhausted, verdictOnThread } from './retry-on-thread';
import type { QueueSlots } from './work-table-layout';
import type { PostToMain } from './job-batch';
import { ALONE, argsOf, jobContextOf, successOf } from './job-context';
import { toThrownError } from './thrown-error';
import { performChunk } from './perform-chunk';
import type { PerformObserver } from './perform-observer';

export { toThrownError };
export type { PerformObserver };

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
    const args = argsOf(task, job);
    const loadedJob = job;
    const loadedHandler = (handler = await loadHandler(task.file));
    // A module with performMany runs a lone job as a chunk of one (nexq/testing, an exhausted hook aside).
    const perform = loadedHandler.perform;
    if (!task.exhausted && (loadedHandler.performMany || !perform))
      return (await performChunk([task], observer, slots, post, retry))[0];
    const { context, asked } = jobContextOf(task, job, observer, slots, post);
    if (task.exhausted) {
      await runExhausted(handler, args, context, task.exhausted);
      return { ok: true };
    }
    observer.starting?.(args, context);
    const run = () => perform?.apply(context, args);
    const value = await (otel() ? inProcessSpan(loadedJob, context.className, run) : run());
    observer.returned?.(value);
    return successOf(value, loadedJob, loadedHandler, asked, context.className);
  } catch (err) {
    observer.failed?.(err);
    const verdict = job && !task.exhausted ? await verdictOnThread(handler, job, err, retry) : {};
    return { ok: false, error: toThrownError(err), ...verdict };
  }
}
