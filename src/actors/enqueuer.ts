// Enqueuer: writes new jobs, in the layout every Exq, Sidekiq and nexq node reads.
//
// Responsibilities:
//  1. Encode jobs (jid, timestamps, retry) and check their input, with a clear error for bad input
//     (src/job/new-jobs.ts, shared with nexq/testing's fake and inline modes).
//  2. Enqueue now (SADD queues + LPUSH, one transaction), at a time (ZADD schedule), or many at
//     once in one all-or-nothing transaction.
// Enqueue runs on the caller's turn rather than through the mailbox: it shares no state, Redis
// orders the writes, and serializing it would allow one round trip at a time for the whole node.
import { Actor } from '../actor';
import { EnqueueRequest, prepareJobs } from '../job/new-jobs';
import { formatScore } from '../redis/scripts';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';

export type { EnqueueRequest } from '../job/new-jobs';

export class Enqueuer extends Actor {
  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.enqueuer, registry: ctx.registry });
  }

  async enqueue(request: EnqueueRequest): Promise<string> {
    const [jid] = await this.enqueueAll([request]);
    return jid;
  }

  /** Writes every job or none (MULTI/EXEC); resolves to their jids in order. */
  async enqueueAll(requests: EnqueueRequest[]): Promise<string[]> {
    const jobs = prepareJobs(requests, this.ctx.config.timestamps);
    if (jobs.length === 0) return [];
    const { keys, redis } = this.ctx;
    const tx = redis.multi();
    for (const { queue, json, runAt } of jobs) {
      if (runAt === undefined) tx.sadd(keys.queues, queue).lpush(keys.queue(queue), json);
      else tx.zadd(keys.schedule, formatScore(runAt), json);
    }
    const results = await tx.exec();
    const failure = results?.find(([err]) => err);
    if (!results || failure) throw new Error(`enqueue failed: ${failure?.[0]?.message ?? 'transaction aborted'}`);
    return jobs.map((job) => job.jid);
  }
}
