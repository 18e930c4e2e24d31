// Enqueuer: writes new jobs, in the layout every Exq, Sidekiq and nexq node reads.
//
// Responsibilities:
//  1. Encode jobs (jid, timestamps, retry) and check their input, with a clear error for bad input
//     (src/job/new-jobs.ts, shared with nexq/testing's fake and inline modes).
//  2. Enqueue now (SADD queues + LPUSH), at a time (ZADD schedule), or many at once, in one script
//     call (enqueue.lua) that refuses the lot when a queue is paused for input or full (maxlen),
//     and takes unique locks, sending a duplicate to the job holding the lock.
//  3. Warn once per queue or class of the jobs no live node would run (src/handlers/unserved-jobs.ts).
// Enqueue runs on the caller's turn rather than through the mailbox: it shares no state, Redis
// orders the writes, and serializing it would allow one round trip at a time for the whole node.
import { Actor } from '../runtime';
import { EnqueueRequest, prepareJobs } from '../job/new-jobs';
import { enqueueJobs, NewJob } from '../redis/enqueue-scripts';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import { UnservedJobs } from '../handlers/unserved-jobs';

export type { EnqueueRequest } from '../job/new-jobs';

export class Enqueuer extends Actor {
  private readonly unserved: UnservedJobs;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.enqueuer, registry: ctx.registry });
    this.unserved = new UnservedJobs(
      () => ctx.redis,
      ctx.keys,
      ctx.logger,
      () => {
        const { jobs } = ctx;
        if (!jobs) return new Map();
        const classes = new Set(jobs.handlers.classNames);
        return new Map(jobs.running.slots.subscribed().map((q) => [q.name, classes]));
      },
    );
  }

  async enqueue(request: EnqueueRequest): Promise<string> {
    const [{ jid }] = await this.enqueueAllResults([request]);
    return jid;
  }

  /** Writes every job or none; resolves to their jids in order (a unique conflict: the holder's). */
  async enqueueAll(requests: EnqueueRequest[]): Promise<string[]> {
    return (await this.enqueueAllResults(requests)).map((r) => r.jid);
  }

  /** Like enqueueAll, saying for each job whether a unique lock sent it to an existing job. */
  async enqueueAllResults(requests: EnqueueRequest[]): Promise<EnqueueResult[]> {
    // Due times and timestamps by Redis' clock (docs/time.md), without a round trip.
    const { config, clock } = this.ctx;
    const jobs = prepareJobs(requests, config.timestamps, clock.now(), config.maxPayloadBytes, this.ctx.encryption);
    if (jobs.length === 0) return [];
    const { keys, redis } = this.ctx;
    // Fields named one by one, not spread: a spread copies generically, and this runs per job.
    const newJobs: NewJob[] = jobs.map(({ queue, jid, json, runAt, maxlen, unique }) => ({
      queue,
      jid,
      json,
      runAt,
      maxlen,
      queueKey: keys.queue(queue),
      unique: unique && { lockKey: keys.uniqueLock(unique.key, queue), ttl: unique.ttl },
    }));
    // Awaited, not returned: an async function that returns a promise takes two more turns.
    const results = await enqueueJobs(redis, keys, newJobs);
    this.unserved.note(requests);
    return results;
  }
}

export interface EnqueueResult {
  jid: string;
  /** True when a unique lock was held: nothing was written and `jid` is the holder's. */
  conflict: boolean;
}
