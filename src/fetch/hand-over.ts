// What follows a fetch, a poll's or a late call's: each queue's new state recorded for the fetch
// policy, queues whose keys Redis refused left out for a while, a call whose reply was lost
// reclaimed, and one runner started per job taken while the queue has a free slot or room ahead of
// one (prefetch: the job waits on a thread for a slot); any more (its concurrency lowered while a
// call was out) go back to their queue. A fetch answered after the
// node's claim on its backup lists may have lapsed (src/run/lease.ts) starts nothing: its jobs
// go back from the backup list, if a reaper has not taken them already.
import type { Logger } from '../runtime/logger';
import type { Fetched, FetchQueue } from '../redis/scripts';
import type { WorkTable } from '../run/work-table';
import type { Reclaimer } from './reclaimer';
import type { ServedQueues } from './served-queues';

/** What the hand-over works with: the manager's parts. */
export interface HandOverParts {
  /** The node's claim on its backup lists surely holds: a job taken may start. */
  mayStart(): boolean;
  queues: ServedQueues;
  table: WorkTable;
  reclaimer: Reclaimer;
  dispatch(queue: string, backupKey: string, raw: string): Promise<void>;
  /** Takes back the jobs of `queue` waiting on threads for a slot (they go back to the queue). */
  withdraw(queue: string): void;
  queueFailed(queue: string, message: string): void;
  logger: Logger;
  actor: string;
}

export async function handOver(parts: HandOverParts, fetchQueues: FetchQueue[], fetched: Fetched): Promise<void> {
  const { queues, table, reclaimer } = parts;
  for (const [i, message] of fetched.errors) parts.queueFailed(fetchQueues[i].name, message);
  // A call that failed may have moved jobs before its reply was lost: look for them before the next fetch.
  if (fetched.unsure) for (const q of fetchQueues) reclaimer.queue(q.name);
  for (const message of fetched.classErrors)
    parts.logger.error(`a class limit's key is unusable, its jobs wait: ${message}`, { actor: parts.actor });
  for (const [i, { name, backupKey }] of fetchQueues.entries()) {
    const wait = fetched.waits[i] ?? 0;
    queues.record(name, fetched.states[i], wait > 0 ? Date.now() + wait : 0);
    // Paused for output: what it handed over ahead goes back rather than start.
    if (fetched.states[i] === 'paused') parts.withdraw(name);
    if (fetched.jobs[i].length > 0 && !parts.mayStart()) {
      reclaimer.queue(name);
      continue;
    }
    for (const raw of fetched.jobs[i]) {
      // Taken ahead of a free slot (prefetch): it waits on a thread for one; beyond that, back it goes.
      if (table.free(name) <= 0 && !queues.mayHandAhead(name)) {
        reclaimer.queue(name);
        continue;
      }
      await parts.dispatch(name, backupKey, raw);
    }
  }
}
