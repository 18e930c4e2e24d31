// The fetch calls of one round and what follows them. In the shared key layout, or under a
// node-wide cap, one script call fetches every queue the policy chose; in the per-queue layout one
// call per queue, each handed over as it answers, and a call still out after a moment (a cluster
// slot in migration) answers later as a message (./late-fetches.ts). A late answer is handed over
// unless its queues were left or the node went quiet meanwhile: then what it took goes back.
//
// What follows each answer (handOver): each queue's new state recorded for the fetch policy,
// queues whose keys Redis refused left out for a while, a call whose reply was lost reclaimed, and
// one runner started per job taken while the queue has a free slot or room ahead of one (prefetch:
// the job waits on a thread for a slot); any more (its concurrency lowered while a call was out)
// go back to their queue. A fetch answered after the node's claim on its backup lists may have
// lapsed (src/run/lease.ts) starts nothing: its jobs go back from the backup list, if a reaper has
// not taken them already.
import type { ClassLimit, FetchCall, Fetched, FetchQueue } from '../redis/fetch-script';
import { failedFetch, fetchCalls, fetchJobs } from '../redis/fetch-script';
import type { JobsContext } from '../run/node-context';
import type { FetchAnswer, LateFetches } from './late-fetches';
import type { Logger } from '../runtime/logger';
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

export class Fetcher {
  constructor(
    private readonly ctx: JobsContext,
    private readonly parts: HandOverParts,
    private readonly late: LateFetches,
    private readonly classes: ClassLimit[],
  ) {}

  /** Fetches `fetchQueues` and hands over what came; `capLeft`: what a node-wide cap leaves, if any. */
  async fetch(fetchQueues: FetchQueue[], capLeft: number | undefined): Promise<void> {
    const { redis, keys, config } = this.ctx;
    if (keys.perQueue && capLeft === undefined) {
      // One call per queue, each handed over as it answers (under a node-wide cap the queues are
      // taken in order instead, each call with what is left of it).
      await this.handOverEach(fetchCalls(redis, keys, config.nodeId, fetchQueues, this.classes));
    } else {
      const fetched = await fetchJobs(redis, keys, config.nodeId, fetchQueues, this.classes, capLeft);
      await handOver(this.parts, fetchQueues, fetched);
    }
  }

  /**
   * A late fetch call answered: as a poll's answer, unless one of its queues is no longer served
   * (`served`) or the node went quiet meanwhile.
   */
  async lateFetched(answer: FetchAnswer, served: (queue: string) => boolean): Promise<void> {
    this.late.answered(answer.call);
    if (this.ctx.lifecycle.quiet || answer.call.queues.some((q) => !served(q.name))) {
      // What the call took goes back to its queue (and a failed call's reply may have been lost).
      for (const q of answer.call.queues) this.parts.reclaimer.queue(q.name);
    } else {
      await this.handOverAnswer(answer);
    }
  }

  /**
   * The fetch calls of the per-queue key layout: each answer is handed over, those that came within
   * LATE_AFTER_MS now, the others as they come (`late_fetched`), so a queue whose cluster slot is
   * moving holds back no other. When every call failed, the poll fails as one call would.
   */
  private async handOverEach(calls: FetchCall[]): Promise<void> {
    const answers = await this.late.collect(calls);
    const failed = answers.filter((a) => a.error);
    if (failed.length === calls.length && failed[0].error) throw failed[0].error;
    for (const answer of answers) await this.handOverAnswer(answer);
  }

  private async handOverAnswer({ call, fetched, error }: FetchAnswer): Promise<void> {
    await handOver(this.parts, call.queues, fetched ?? failedFetch(call.queues.length, error));
  }
}
