// Which soak job is which, by its index: 1% fail once and succeed on their retry, 0.1% fail twice
// and die (`retry: 1`), 1% hold a unique lock, 1% are scheduled a second ahead, the rest succeed.
import type { BulkJob } from '../../src/nexq';

export type Kind = 'ok' | 'fail-once' | 'dead' | 'unique' | 'scheduled';

export function kindOf(index: number): Kind {
  if (index % 1000 === 999) return 'dead';
  switch (index % 100) {
    case 50:
      return 'fail-once';
    case 7:
      return 'unique';
    case 13:
      return 'scheduled';
    default:
      return 'ok';
  }
}

/** The job `index` (negative: a warm-up job, whose kind the caller gives). */
export function soakJob(queue: string, index: number, kind = kindOf(index)): BulkJob {
  const job: BulkJob = { queue, class: 'Soak', args: [index, kind] };
  if (kind === 'dead') job.options = { retry: 1 };
  // A lock per job, released when it succeeds: a lock left behind would show in Redis' memory.
  if (kind === 'unique') job.options = { unique: { for: 3600, key: `soak-${index}` } };
  if (kind === 'scheduled') job.in = 1;
  return job;
}

/** How many of the first `jobs` are of `kind`. */
export function countOf(kind: Kind, jobs: number): number {
  let count = 0;
  for (let i = 0; i < jobs; i++) if (kindOf(i) === kind) count++;
  return count;
}
