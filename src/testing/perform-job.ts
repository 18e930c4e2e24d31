// performJob: runs one handler now, as a node would run a job of that class with those args, and
// answers with its outcome. Mistakes in the call itself (an unknown class, args that JSON would
// change) reject; what the handler does is the outcome, plus warnings when it changed its args.
import type { TimestampFormat } from '../../config/defaults';
import type { HandlerRegistry } from '../handlers/registry';
import { InvalidJobError, JobOptions } from '../job/job';
import { rewriteMembers } from '../job/json-members';
import { prepareJobs } from '../job/new-jobs';
import { IN_MEMORY } from '../job/encryption';
import type { JobOutcome } from '../../workers/protocol';
import { JobArgsError } from './errors';
import { jsonProblems } from '../job/json-safety';
import { runPayload } from './run-job';
import type { ScopeOwner } from './scope';

export interface PerformJobOptions extends JobOptions {
  /** The job's queue (`this.queue`); `default` unless given. */
  queue?: string;
  /** Failures so far (`this.retryCount`), to run the job as its retry would. */
  retryCount?: number;
}

/**
 * The thread's outcome record (`{ ok: true }` or `{ ok: false, error: { class, message, backtrace } }`),
 * with `warnings` only when there is something to say.
 */
export type PerformOutcome = JobOutcome & { warnings?: string[] };

export async function performJob(
  nexq: ScopeOwner,
  registry: HandlerRegistry,
  timestamps: TimestampFormat,
  className: string,
  args: unknown[],
  options: PerformJobOptions = {},
): Promise<PerformOutcome> {
  // Throws UnknownJobClassError naming the class, before anything runs.
  if (typeof className === 'string' && className !== '') registry.resolve(className);
  if (Array.isArray(args)) {
    const problems = jsonProblems(args, 'args');
    if (problems.length) throw new JobArgsError(className, problems);
  }
  const { queue = 'default', retryCount, ...jobOptions } = options;
  const [job] = prepareJobs(
    [{ queue, class: className, args, options: jobOptions }],
    timestamps,
    undefined,
    undefined,
    IN_MEMORY,
  );
  let raw = job.json;
  if (retryCount !== undefined) {
    if (!Number.isInteger(retryCount) || retryCount < 0)
      throw new InvalidJobError('retryCount must be an integer >= 0');
    raw = rewriteMembers(raw, { retry_count: String(retryCount) });
  }
  const { outcome, warnings } = await runPayload(nexq, registry, raw);
  return warnings.length ? { ...outcome, warnings } : outcome;
}
