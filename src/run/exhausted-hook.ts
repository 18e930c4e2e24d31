// A handler's `exhausted(args, error)` hook (Sidekiq's `sidekiq_retries_exhausted`): run on a worker
// thread once its job, out of retries (or killed by its backoff), is filed in dead. It runs after
// the dead set holds the job, so a node that dies in between never runs it: at most once per death.
// Its failure is logged and never retried; it cannot change the job's fate.
import type { JobError } from '../job/failure';
import type { FetchedJob } from '../job/job';
import type { Resolved } from '../handlers/registry';
import type { JobsContext } from './node-context';
import { jobLogFields } from './logging-middleware';

export async function runExhaustedHook(
  ctx: JobsContext,
  fetched: FetchedJob,
  handler: Resolved,
  error: JobError,
): Promise<void> {
  const fields = jobLogFields(fetched.job, fetched.queue);
  const task = { raw: fetched.raw, file: handler.file, activeJob: handler.activeJob, exhausted: error };
  let why: string | undefined;
  try {
    const result = await ctx.jobs.pool.run(task, ctx.config.jobTimeout);
    if (!result.ok) why = `${result.error.class}: ${result.error.message}`;
  } catch (err) {
    why = (err as Error).message;
  }
  if (why !== undefined) ctx.logger.warn(`${fields.class} exhausted hook failed: ${why}; not retried`, fields);
}
