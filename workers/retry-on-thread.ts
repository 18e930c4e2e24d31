// The parts of a handler's retry policy that are its own code, run on the thread that ran the job:
// its backoff function, asked about a failure that has retries left (as Sidekiq asks
// `sidekiq_retry_in`), and its `exhausted(args, error)` hook, run when the node has filed the job in
// dead (src/run/exhausted-hook.ts). The main thread applies the verdict (src/job/failure.ts).
import type { JobPayload } from '../src/job/job';
import { failureCount, maxRetriesOf } from '../src/job/failure';
import { readVerdict } from '../src/job/retry-policy';
import type { JobContext, LoadedHandler } from './handler-loader';
import type { JobOutcome, RetrySettings, ThrownError } from './protocol';

/** Without settings from the node (nexq/testing): the defaults of config/defaults.ts. */
export const DEFAULT_RETRY_SETTINGS: RetrySettings = { dialect: 'exq', maxRetries: 25 };

type Verdict = Pick<Extract<JobOutcome, { ok: false }>, 'retryIn' | 'retryProblem'>;

/** The backoff function's verdict on this failure; nothing when there is no function or no retry left. */
export async function verdictOnThread(
  handler: LoadedHandler | undefined,
  job: JobPayload,
  thrown: unknown,
  settings: RetrySettings,
): Promise<Verdict> {
  const backoff = handler?.retry?.backoff;
  if (typeof backoff !== 'function' || job.at_most_once === true) return {};
  if (job.retry === false && settings.dialect === 'sidekiq') return {};
  const { attemptsSoFar } = failureCount(job, settings.dialect);
  if (attemptsSoFar >= maxRetriesOf(job, handler?.retry?.max ?? settings.maxRetries)) return {};
  try {
    const verdict = readVerdict(await backoff(attemptsSoFar, thrown));
    if (verdict === undefined) return {};
    return typeof verdict === 'object' ? { retryProblem: verdict.problem } : { retryIn: verdict };
  } catch (err) {
    return {
      retryProblem: `the retry backoff threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
    };
  }
}

/** The error the job died of, as an Error again for the `exhausted` hook. */
function errorFrom(thrown: ThrownError): Error {
  const error = new Error(thrown.message);
  error.name = thrown.class;
  if (thrown.backtrace)
    error.stack = `${thrown.class}: ${thrown.message}\n${thrown.backtrace.map((f) => `    ${f}`).join('\n')}`;
  return error;
}

/** Runs the module's `exhausted(args, error)` hook with `this` the job's context. */
export async function runExhausted(
  handler: LoadedHandler,
  args: unknown[],
  context: JobContext,
  thrown: ThrownError,
): Promise<void> {
  await handler.exhausted?.call(context, args, errorFrom(thrown));
}
