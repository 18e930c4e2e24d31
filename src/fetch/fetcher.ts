// The fetch calls of one round and what follows them. In the shared key layout, or under a
// node-wide cap, one script call fetches every queue the policy chose; in the per-queue layout one
// call per queue, each handed over as it answers, and a call still out after a moment (a cluster
// slot in migration) answers later as a message (./late-fetches.ts). A late answer is handed over
// unless its queues were left or the node went quiet meanwhile: then what it took goes back.
import type { ClassLimit, FetchCall, FetchQueue } from '../redis/scripts';
import { failedFetch, fetchCalls, fetchJobs } from '../redis/scripts';
import type { JobsContext } from '../run/node-context';
import { handOver, type HandOverParts } from './hand-over';
import type { FetchAnswer, LateFetches } from './late-fetches';

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
