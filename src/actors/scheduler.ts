// Scheduler: moves due jobs out of the `schedule` and `retry` sets into their queues.
//
// Responsibilities:
//  1. Every `schedulerPollTimeout` ms, read the jobs due by Redis' clock (the node's Clock,
//     docs/time.md) in batches and move each one with an atomic
//     script (ZREM + LPUSH), so two nodes' schedulers never enqueue a job twice.
//  2. Bury a due entry nexq cannot read in the dead set with the reason, instead of retrying it forever.
//  3. Keep going through Redis errors: log, and try again on the next tick.
import { v4 as uuidv4 } from 'uuid';
import { TickingActor } from '../runtime';
import { decodeJob, MalformedJobError } from '../job/job';
import { malformedEntry } from '../job/failure';
import { rewriteMembers } from '../job/json-members';
import { jsonTimestamp } from '../job/time';
import { formatScore } from '../redis/scripts';
import { buryDue, enqueueDue } from '../redis/move-scripts';
import type { NodeContext } from '../run/node-context';
import { knownQueues } from '../redis/known-queues';
import { ActorNames } from '../run/node-context';
import { isQueueName } from '../../config/queue-options';

/** Due jobs read per round trip; a full batch means more may be due, so the next is read at once. */
export const SCHEDULER_BATCH = 100;

export class Scheduler extends TickingActor {
  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.scheduler, registry: ctx.registry, logger: ctx.logger, what: 'scheduler tick' });
  }

  protected override async tick(): Promise<void> {
    await this.enqueueDueJobs();
  }

  protected override nextTickMs(): number {
    return this.ctx.config.schedulerPollTimeout;
  }

  /** Moves every job due by now; returns how many were moved to queues. */
  async enqueueDueJobs(): Promise<number> {
    const { keys, redis, config } = this.ctx;
    // One schedule and one retry set, or in the per-queue key layout one of each per known queue:
    // read together, and a set that fails (its master away, a broken job) fails alone.
    const queues = keys.perQueue
      ? await knownQueues(
          redis,
          keys,
          config.queues.map((q) => q.name),
        )
      : [];
    const sources = [...keys.jobSets('schedule', queues), ...keys.jobSets('retry', queues)];
    const outcomes = await Promise.allSettled(sources.map(({ key, queue = '' }) => this.drainSet(key, queue)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed && outcomes.length === 1) throw failed.reason;
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected')
        this.ctx.logger.warn(`moving due jobs of ${sources[i].key} failed: ${(outcome.reason as Error).message}`, {
          actor: this.name,
        });
    }
    return outcomes.reduce((sum, o) => sum + (o.status === 'fulfilled' ? o.value : 0), 0);
  }

  /** Moves the due jobs of one set; how many went to their queues. */
  private async drainSet(source: string, sourceQueue: string): Promise<number> {
    let moved = 0;
    for (;;) {
      const due = await this.ctx.redis.zrangebyscore(
        source,
        '-inf',
        formatScore(this.ctx.clock.now()),
        'LIMIT',
        0,
        SCHEDULER_BATCH,
      );
      const results = await Promise.all(due.map((raw) => this.move(source, sourceQueue, raw)));
      moved += results.filter(Boolean).length;
      if (due.length < SCHEDULER_BATCH) return moved;
    }
  }

  private async move(source: string, sourceQueue: string, raw: string): Promise<boolean> {
    const { keys, redis } = this.ctx;
    let queue: string;
    let jid: string;
    try {
      const job = decodeJob(raw);
      if (!isQueueName(job.queue)) throw new MalformedJobError('job has no valid "queue" to be enqueued into');
      keys.queue(job.queue); // a name the key layout cannot hold (a brace, per-queue) is refused here
      queue = job.queue;
      jid = job.jid;
    } catch (err) {
      const now = this.ctx.clock.now();
      const jid = uuidv4();
      const entry = malformedEntry(raw, (err as Error).message, '', jid, now);
      this.ctx.logger.error(`unreadable job in ${source} moved to dead: ${(err as Error).message}`, {
        actor: this.name,
      });
      await buryDue(redis, keys, sourceQueue, source, raw, entry, jid, now);
      return false;
    }
    // Like Sidekiq's scheduler, stamp the time it entered its queue; every other byte stays.
    const now = this.ctx.clock.now();
    const enqueued = rewriteMembers(raw, { enqueued_at: jsonTimestamp(now, this.ctx.config.timestamps) });
    return enqueueDue(redis, keys, { source, sourceQueue, queue, raw, enqueued, jid, now, dueBy: now });
  }
}
