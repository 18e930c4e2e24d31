// Assertions on fake mode's recorded jobs. They throw Node's AssertionError, which mocha, jest,
// node:test and chai-based suites all report as a failed assertion, with every enqueued job listed.
import { AssertionError } from 'node:assert';
import { jsonProblems } from '../job/json-safety';
import { jsonEqual, preview } from './json-values';
import type { RecordedJob } from './store';

/** Which jobs to look for; every given field must match. `args` is compared whole, as JSON values. */
export interface JobMatch {
  queue?: string;
  class?: string;
  args?: unknown[];
}

const MATCH_KEYS = new Set(['queue', 'class', 'args']);
const MAX_LISTED = 20;

function checkMatch(match: JobMatch): void {
  const given: unknown = match; // JavaScript callers can pass anything
  if (typeof given !== 'object' || given === null) throw new TypeError('expected { queue?, class?, args? }');
  for (const key of Object.keys(match)) {
    if (!MATCH_KEYS.has(key))
      throw new TypeError(`unknown key ${JSON.stringify(key)} in a job match: use queue, class or args`);
  }
  if (match.queue !== undefined && typeof match.queue !== 'string') throw new TypeError('match.queue must be a string');
  if (match.class !== undefined && typeof match.class !== 'string') throw new TypeError('match.class must be a string');
  if (match.args !== undefined) {
    if (!Array.isArray(match.args)) throw new TypeError('match.args must be an array');
    const problems = jsonProblems(match.args, 'match.args');
    if (problems.length) {
      throw new TypeError(
        `a job's args are JSON, so match.args must be too; compare with what JSON would give:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
    }
  }
}

function matches(job: RecordedJob, match: JobMatch): boolean {
  return (
    (match.queue === undefined || job.queue === match.queue) &&
    (match.class === undefined || job.class === match.class) &&
    (match.args === undefined || jsonEqual(job.args, match.args))
  );
}

export function describeMatch(match: JobMatch): string {
  const parts = (['queue', 'class', 'args'] as const)
    .filter((k) => match[k] !== undefined)
    .map((k) => `${k}: ${preview(match[k])}`);
  return parts.length ? `{ ${parts.join(', ')} }` : 'any job';
}

export function describeJobs(jobs: RecordedJob[], heading: string): string {
  if (jobs.length === 0) return `${heading}: none`;
  const lines = jobs.slice(0, MAX_LISTED).map((job) => {
    const when = job.at === undefined ? '' : `, scheduled for ${new Date(job.at * 1000).toISOString()}`;
    return `  - queue ${JSON.stringify(job.queue)}: ${job.class} ${preview(job.args)} (jid ${job.jid}${when})`;
  });
  if (jobs.length > MAX_LISTED) lines.push(`  … and ${jobs.length - MAX_LISTED} more`);
  return `${heading} (${jobs.length}):\n${lines.join('\n')}`;
}

/** The recorded jobs that match, in the order they were enqueued. */
export function allMatching(jobs: RecordedJob[], match: JobMatch = {}): RecordedJob[] {
  checkMatch(match);
  return jobs.filter((job) => matches(job, match));
}

/** Throws unless at least one job matches; returns the matching ones. */
export function assertEnqueued(jobs: RecordedJob[], match: JobMatch = {}): RecordedJob[] {
  const found = allMatching(jobs, match);
  if (found.length === 0) {
    throw new AssertionError({
      message: `expected ${describeMatch(match)} to be enqueued, but no job matches.\n${describeJobs(jobs, 'Enqueued')}`,
    });
  }
  return found;
}

/** Throws if any job matches. */
export function refuteEnqueued(jobs: RecordedJob[], match: JobMatch = {}): void {
  const found = allMatching(jobs, match);
  if (found.length > 0) {
    throw new AssertionError({
      message: `expected no job matching ${describeMatch(match)} to be enqueued, but found some.\n${describeJobs(found, 'Matching')}`,
    });
  }
}
