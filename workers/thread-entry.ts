// The piscina entry: runs one job's handler on this worker thread and answers with a plain
// record. Every failure of the job, thrown or rejected, becomes `{ ok: false, error }`.
import { inspect } from 'node:util';
import { parentPort } from 'node:worker_threads';
import { readSeconds } from '../src/job/time';
import { loadPerform } from './handler-loader';
import { JobOutcome, JobTask, STARTED, ThrownError } from './protocol';

const MAX_BACKTRACE_LINES = 50;

function toThrownError(value: unknown): ThrownError {
  if (value instanceof Error) {
    const lines = (value.stack ?? '').split('\n').slice(1, MAX_BACKTRACE_LINES + 1).map((l) => l.trim());
    return { class: value.name || value.constructor?.name || 'Error', message: value.message, backtrace: lines };
  }
  return { class: 'NonErrorThrown', message: `a non-Error was thrown: ${inspect(value, { depth: 2 })}` };
}

export default async function runJob(task: JobTask): Promise<JobOutcome> {
  if (task.id !== undefined) parentPort?.postMessage({ type: STARTED, id: task.id });
  try {
    const job = JSON.parse(task.raw);
    let args: unknown[] = job.args;
    if (task.activeJob) {
      const wrapped = args[0] as { arguments?: unknown } | undefined;
      if (!wrapped || !Array.isArray(wrapped.arguments)) throw new TypeError('ActiveJob payload has no arguments array');
      args = wrapped.arguments;
    }
    const perform = await loadPerform(task.file);
    const context = {
      jid: job.jid,
      queue: job.queue,
      className: job.wrapped ?? job.class,
      retryCount: job.retry_count ?? undefined,
      enqueuedAt: readSeconds(job.enqueued_at),
    };
    await perform.apply(context, args);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: toThrownError(err) };
  }
}
