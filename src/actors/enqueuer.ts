// Enqueuer: writes new jobs, in the layout every Exq, Sidekiq and nexq node reads.
//
// Responsibilities:
//  1. Encode jobs (jid, timestamps, retry) and check their input, with a clear error for bad input.
//  2. Enqueue now (SADD queues + LPUSH, one transaction), at a time (ZADD schedule), or many at
//     once in one all-or-nothing transaction.
// Enqueue runs on the caller's turn rather than through the mailbox: it shares no state, Redis
// orders the writes, and serializing it would allow one round trip at a time for the whole node.
import { Actor } from '../actor';
import { isQueueName } from '../../config/validate';
import { encodeNewJob, InvalidJobError, JobOptions } from '../job/job';
import { dateToSeconds, nowSeconds } from '../job/time';
import { formatScore } from '../redis/scripts';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';

export interface EnqueueRequest {
  queue: string;
  class: string;
  args: unknown[];
  /** Run at this time instead of now. */
  at?: Date;
  /** Run this many seconds from now instead of now. */
  in?: number;
  options?: JobOptions;
}

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
    if (!Array.isArray(requests)) throw new InvalidJobError('enqueueAll takes an array of jobs');
    const { keys, redis } = this.ctx;
    const tx = redis.multi();
    const jids: string[] = [];
    for (const request of requests) {
      if (typeof request !== 'object' || request === null) throw new InvalidJobError('each job must be an object { queue, class, args }');
      const { queue } = request;
      if (!isQueueName(queue)) throw new InvalidJobError(`queue name ${JSON.stringify(queue)} is not valid (no spaces or colons)`);
      const runAt = scheduledAt(request);
      const { jid, json } = encodeNewJob(queue, request.class, request.args, request.options, { timestamps: this.ctx.config.timestamps, scheduled: runAt !== undefined });
      jids.push(jid);
      if (runAt === undefined) tx.sadd(keys.queues, queue).lpush(keys.queue(queue), json);
      else tx.zadd(keys.schedule, formatScore(runAt), json);
    }
    if (jids.length === 0) return jids;
    const results = await tx.exec();
    const failure = results?.find(([err]) => err);
    if (!results || failure) throw new Error(`enqueue failed: ${failure?.[0]?.message ?? 'transaction aborted'}`);
    return jids;
  }
}

function scheduledAt(request: EnqueueRequest): number | undefined {
  if (request.at !== undefined && request.in !== undefined) throw new InvalidJobError('a job takes at most one of "at" and "in"');
  if (request.at !== undefined) {
    if (!(request.at instanceof Date) || Number.isNaN(request.at.getTime())) throw new InvalidJobError('enqueueAt needs a valid Date');
    const at = dateToSeconds(request.at);
    // As Sidekiq's client does: a time already past means now.
    return at > nowSeconds() ? at : undefined;
  }
  if (request.in !== undefined) {
    if (typeof request.in !== 'number' || !Number.isFinite(request.in)) throw new InvalidJobError('enqueueIn needs a number of seconds');
    return request.in > 0 ? nowSeconds() + request.in : undefined;
  }
  return undefined;
}
