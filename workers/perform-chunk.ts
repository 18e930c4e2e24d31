// Runs a chunk of jobs of one `performMany` handler in one call, in the calling thread, and answers
// one plain outcome per job, in order: the thread entry (workers/thread-entry.ts) runs a chunk the
// main thread formed (src/pool/chunk-former.ts); nexq/testing runs it in-process. Each outcome is
// what that job would have answered alone, so the main thread settles each on its own.
//
// The call returns an array with one entry per job: a value (the job's result, kept when asked),
// or an Error (that job alone fails). Anything else fails every job of the chunk with
// PerformManyResultError; a throw fails every job with what was thrown. Each failure carries the
// verdict of the handler's backoff function for that job (its own retry count).
import type { JobPayload } from '../src/job/job';
import { ChunkContext, JobContext, LoadedHandler, loadHandler, PerformMany } from './handler-loader';
import { inProcessSpan, otel } from './otel';
import type { JobOutcome, JobTask, RetrySettings } from './protocol';
import { verdictOnThread } from './retry-on-thread';
import type { QueueSlots } from './work-table-layout';
import type { PostToMain } from './job-batch';
import { ALONE, argsOf, Asked, jobContextOf, successOf } from './job-context';
import { toThrownError } from './thrown-error';
import type { PerformObserver } from './perform-observer';
import { DEFAULT_RETRY_SETTINGS } from './retry-on-thread';
import { NexqError } from '../config/nexq-error';

/** `performMany` answered something other than one entry per job. */
export class PerformManyResultError extends NexqError {
  static override readonly code = 'PERFORM_MANY_RESULT';
  override readonly name = 'PerformManyResultError';
}

/** A job of the chunk that reached the call. */
interface Member {
  index: number;
  job: JobPayload;
  args: unknown[];
  context: JobContext;
  asked: Asked;
}

export async function performChunk(
  tasks: JobTask[],
  observer: PerformObserver = {},
  slots: (row: number | undefined) => QueueSlots = () => ALONE,
  post?: PostToMain,
  retry: RetrySettings = DEFAULT_RETRY_SETTINGS,
): Promise<JobOutcome[]> {
  const outcomes: JobOutcome[] = new Array<JobOutcome>(tasks.length);
  const members: Member[] = [];
  tasks.forEach((task, index) => {
    try {
      // Decoded (checked) on the main thread before it came here.
      const job = JSON.parse(task.raw) as JobPayload;
      const args = argsOf(task, job);
      members.push({ index, job, args, ...jobContextOf(task, job, observer, slots, post) });
    } catch (err) {
      outcomes[index] = { ok: false, error: toThrownError(err) };
    }
  });
  if (members.length === 0) return outcomes;
  let handler: LoadedHandler | undefined;
  let results: unknown[];
  try {
    handler = await loadHandler(tasks[0].file);
    const many = handler.performMany;
    if (!many) throw new PerformManyResultError(`${tasks[0].file} exports no performMany function`);
    results = await callMany(many, members, tasks[0].slotsRow, slots, observer);
  } catch (err) {
    observer.failed?.(err);
    for (const member of members) outcomes[member.index] = await memberFailure(err, member, handler, retry);
    return outcomes;
  }
  // Each member on its own: one whose result or error cannot be read fails alone, never its chunk-mates.
  for (const [i, member] of members.entries())
    outcomes[member.index] = await outcomeOf(results[i], member, handler, observer, retry).catch((err: unknown) =>
      memberFailure(err, member, handler, retry),
    );
  return outcomes;
}

/** Calls `performMany` once with every member's args; its answer, checked to hold one entry per job. */
async function callMany(
  many: PerformMany,
  members: Member[],
  slotsRow: number | undefined,
  slots: (row: number | undefined) => QueueSlots,
  observer: PerformObserver,
): Promise<unknown[]> {
  const first = members[0];
  const chunk: ChunkContext = {
    queue: first.context.queue,
    className: first.context.className,
    jobs: members.map((member) => member.context),
    slots: () => slots(slotsRow),
  };
  for (const member of members) observer.starting?.(member.args, member.context);
  const argsList = members.map((member) => member.args);
  const run = () => many.call(chunk, argsList);
  // One span for the call, under the first job's trace (a chunk has no one parent).
  const results = await (otel() ? inProcessSpan(first.job, chunk.className, run) : run());
  if (!Array.isArray(results) || results.length !== members.length)
    throw new PerformManyResultError(
      `performMany must return an array of one result per job (${members.length}), not ${describe(results)}`,
    );
  return results as unknown[];
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : typeof value;
}

/** One member's outcome from its entry of the answer: an Error fails it alone. */
async function outcomeOf(
  result: unknown,
  member: Member,
  handler: LoadedHandler,
  observer: PerformObserver,
  retry: RetrySettings,
): Promise<JobOutcome> {
  if (result instanceof Error) return failureOf(result, member, handler, retry);
  observer.returned?.(result);
  try {
    return successOf(result, member.job, handler, member.asked, member.context.className);
  } catch (err) {
    return failureOf(err, member, handler, retry);
  }
}

/** A member's failure; when even its error cannot be read, a failure that says so. */
async function memberFailure(
  err: unknown,
  member: Member,
  handler: LoadedHandler | undefined,
  retry: RetrySettings,
): Promise<JobOutcome> {
  try {
    return await failureOf(err, member, handler, retry);
  } catch {
    return { ok: false, error: { class: 'Error', message: 'the job failed with an error that could not be read' } };
  }
}

async function failureOf(
  err: unknown,
  member: Member,
  handler: LoadedHandler | undefined,
  retry: RetrySettings,
): Promise<JobOutcome> {
  const verdict = await verdictOnThread(handler, member.job, err, retry);
  return { ok: false, error: toThrownError(err), ...verdict };
}
