// performMany: runs one chunk of a `performMany` handler now, in-process, as a node would run a
// chunk of jobs of that class with those args (workers/perform-chunk.ts), and answers each job's
// outcome in order. Mistakes in the call itself (an unknown class, a module without performMany,
// args that JSON would change) reject; what the handler does is the outcomes.
import type { TimestampFormat } from '../../config/defaults';
import type { HandlerRegistry } from '../handlers/registry';
import { prepareJobs } from '../job/new-jobs';
import { IN_MEMORY } from '../job/encryption';
import { performChunk } from '../../workers/perform-chunk';
import type { JobOutcome } from '../../workers/protocol';
import { JobArgsError } from './errors';
import { jsonProblems } from '../job/json-safety';
import type { PerformJobOptions } from './perform-job';
import { runInScope, ScopeOwner } from './scope';

export async function performMany(
  nexq: ScopeOwner,
  registry: HandlerRegistry,
  timestamps: TimestampFormat,
  className: string,
  argsList: unknown[][],
  options: Omit<PerformJobOptions, 'retryCount'> = {},
): Promise<JobOutcome[]> {
  // Throws UnknownJobClassError naming the class, before anything runs.
  const resolved = registry.resolve(className);
  if (!Array.isArray(argsList) || argsList.length === 0)
    throw new TypeError('performMany: argsList must be a non-empty array of args arrays');
  for (const [i, args] of argsList.entries()) {
    const problems = Array.isArray(args) ? jsonProblems(args, `argsList[${i}]`) : [`argsList[${i}] is not an array`];
    if (problems.length) throw new JobArgsError(className, problems);
  }
  const { queue = 'default', ...jobOptions } = options;
  const jobs = prepareJobs(
    argsList.map((args) => ({ queue, class: className, args, options: jobOptions })),
    timestamps,
    undefined,
    undefined,
    IN_MEMORY,
  );
  const tasks = jobs.map((job) => ({ raw: job.json, file: resolved.file, activeJob: resolved.activeJob }));
  return runInScope(nexq, () => performChunk(tasks));
}
