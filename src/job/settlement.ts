// How one fetched job is settled in Redis, each way in one atomic step: ack, retry/dead/discard,
// nack, and the early steps of at-most-once and unique-until-start jobs. The JobWorker decides
// when; this decides which keys and script, and what the job held (unique lock, global slot).
import type { NodeContext } from '../node-context';
import { ackJob, failJob, Held, nackJob, unlockUnique } from '../redis/scripts';
import { decideFailure, JobError } from './failure';
import type { FetchedJob } from './job';
import { rewriteMembers } from './json-members';
import { jsonTimestamp, nowSeconds } from './time';

/** Where a failed job went, for the log line and the job events. */
export interface FailReport {
  to: 'retry' | 'dead' | 'discard';
  /** The job's retry_count as written (unchanged when it was dropped). */
  retryCount: number;
  /** Epoch seconds of the next run, for `retry`. */
  nextRetryAt?: number;
  /** A line for the log. */
  description: string;
}

export class Settlement {
  private readonly held: Held;

  constructor(private readonly ctx: NodeContext, private readonly fetched: FetchedJob, private readonly backup: string) {
    const { job, queue } = fetched;
    const spec = ctx.config.queues.find((q) => q.name === queue);
    this.held = {
      slot: spec?.globalConcurrency ? { runningKey: ctx.keys.running(queue), nodeId: ctx.config.nodeId } : undefined,
      lock: job.unique_key && job.unique_until === 'success' ? { lockKey: ctx.keys.uniqueLock(job.unique_key), jid: job.jid } : undefined,
    };
  }

  /** Success: off the backup list, letting go of its lock and slot. */
  ack(): Promise<unknown> {
    const { redis } = this.ctx;
    if (!this.held.lock && !this.held.slot) return redis.lrem(this.backup, 1, this.fetched.raw);
    return ackJob(redis, this.backup, this.fetched.raw, this.held);
  }

  /** At-most-once: off the backup list before it runs (a crash from here on loses it, by request). */
  takeOffBackup(): Promise<boolean> {
    return ackJob(this.ctx.redis, this.backup, this.fetched.raw, { slot: this.held.slot });
  }

  /** A job that is finished without success (dead, dropped, expired, at-most-once) lets go of its lock. */
  async releaseLock(): Promise<void> {
    if (this.held.lock) await unlockUnique(this.ctx.redis, this.held.lock.lockKey, this.held.lock.jid);
  }

  /** Unique until start: the lock goes as the job starts. */
  async releaseLockAtStart(): Promise<void> {
    const { job } = this.fetched;
    if (job.unique_key && job.unique_until === 'start') await unlockUnique(this.ctx.redis, this.ctx.keys.uniqueLock(job.unique_key), job.jid);
  }

  /** The handler asked to run it again later: back in its queue with `nacks` raised. */
  nack(): Promise<unknown> {
    const { raw, job, queue } = this.fetched;
    const rewritten = rewriteMembers(raw, { nacks: String((Number.isInteger(job.nacks) ? job.nacks! : 0) + 1) });
    return nackJob(this.ctx.redis, this.backup, this.ctx.keys.queue(queue), raw, rewritten, { slot: this.held.slot });
  }

  /** Failure: to `retry`, to `dead` or dropped, by the job's retry rules. */
  async fail(error: JobError, atMostOnce = false): Promise<FailReport> {
    const { config, keys, redis } = this.ctx;
    const { raw: fetchedRaw, job } = this.fetched;
    // A job without a `queue` field (other producers) learns it here, or its retry would have none.
    const raw = typeof job.queue === 'string' ? fetchedRaw : rewriteMembers(fetchedRaw, { queue: JSON.stringify(this.fetched.queue) });
    const now = nowSeconds();
    const decision = atMostOnce ? decideFailure(raw, { ...job, retry: 0 }, error, { ...config, dialect: 'exq' }, now) : decideFailure(raw, job, error, config, now);
    const dead = { target: keys.dead, score: now, trimBelow: now - config.deadTimeoutSeconds, maxEntries: config.deadMaxJobs };
    const previousCount = Number.isInteger(job.retry_count) ? (job.retry_count as number) : 0;
    if (atMostOnce) {
      // Already off the backup list: it is filed in the dead set for the record, never retried.
      if (decision.to !== 'discard') await redis.zadd(keys.dead, String(now), decision.json);
      await this.releaseLock();
      return decision.to === 'discard'
        ? { to: 'discard', retryCount: previousCount, description: 'at most once: dropped, not retried' }
        : { to: 'dead', retryCount: decision.retryCount, description: 'at most once: moved to dead, not retried' };
    }
    switch (decision.to) {
      case 'retry':
        await failJob(redis, { backup: this.backup, target: keys.retry, raw: fetchedRaw, rewritten: decision.json, score: decision.at, slot: this.held.slot });
        return { to: 'retry', retryCount: decision.retryCount, nextRetryAt: decision.at, description: `retry #${decision.retryCount} at ${new Date(decision.at * 1000).toISOString()}` };
      case 'dead':
        await failJob(redis, { backup: this.backup, raw: fetchedRaw, rewritten: decision.json, slot: this.held.slot, ...dead });
        await this.releaseLock();
        return { to: 'dead', retryCount: decision.retryCount, description: 'out of retries, moved to dead' };
      case 'discard':
        await ackJob(redis, this.backup, fetchedRaw, { slot: this.held.slot });
        await this.releaseLock();
        return { to: 'discard', retryCount: previousCount, description: 'discarded (retry: false or dead: false)' };
    }
  }

  /** Never started before its ttl: to the dead set with the reason `expired`. */
  async expire(): Promise<void> {
    const { config, keys, redis } = this.ctx;
    const now = nowSeconds();
    const entry = rewriteMembers(this.fetched.raw, {
      error_class: '"JobExpiredError"',
      error_message: '"expired"',
      failed_at: jsonTimestamp(now, config.timestamps),
    });
    await failJob(redis, {
      backup: this.backup, target: keys.dead, raw: this.fetched.raw, rewritten: entry, score: now,
      trimBelow: now - config.deadTimeoutSeconds, maxEntries: config.deadMaxJobs, slot: this.held.slot,
    });
    await this.releaseLock();
  }
}
