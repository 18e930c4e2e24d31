// How one fetched job is settled in Redis, each way in one atomic step: ack, retry/dead/discard,
// nack, and the early steps of at-most-once and unique-until-start jobs. The JobWorker decides
// when; this decides which keys and script, and what the job held (unique lock, running slots).
// Every step keeps the job index in step (src/redis/job-index.ts).
import type { NodeContext } from '../node-context';
import { ackJob, failJob, Held, releaseJob, requeueJob } from '../redis/scripts';
import { decideFailure, JobError } from './failure';
import type { FetchedJob } from './job';
import { rewriteMembers } from './json-members';
import { heldSlots } from './limits';
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
  /** The job index its queue's jobs are in. */
  private readonly index: string;

  constructor(private readonly ctx: NodeContext, private readonly fetched: FetchedJob, private readonly backup: string) {
    const { job, queue } = fetched;
    const { config, keys } = ctx;
    this.index = keys.jobIndex(queue);
    this.held = {
      slots: heldSlots(config, keys, queue, job.class),
      nodeId: config.nodeId,
      lock: job.unique_key && job.unique_until === 'success' ? { lockKey: keys.uniqueLock(job.unique_key, queue), jid: job.jid } : undefined,
    };
  }

  private get unlocked(): Held {
    return { slots: this.held.slots, nodeId: this.held.nodeId };
  }

  /** Success: off the backup list and out of the index, letting go of its lock and slots. */
  ack(): Promise<boolean> {
    const { workers } = this.ctx;
    if (!this.held.lock && this.held.slots.length === 0 && workers) return workers.acks.ack(this.fetched.queue, this.backup, this.fetched.raw, this.fetched.job.jid);
    return ackJob(this.ctx.redis, this.index, this.backup, this.fetched.raw, this.fetched.job.jid, this.held);
  }

  /**
   * At-most-once: off the backup list before it runs (a crash from here on loses it, by request).
   * It keeps its running slots until it ends (finishTaken, or fail / cancel with `taken`).
   */
  takeOffBackup(): Promise<boolean> {
    return ackJob(this.ctx.redis, this.index, this.backup, this.fetched.raw, this.fetched.job.jid, { slots: [], nodeId: this.held.nodeId }, true);
  }

  /** A job that is finished without success (dead, dropped, expired, at-most-once) lets go of its lock. */
  async releaseLock(): Promise<void> {
    if (this.held.lock) await releaseJob(this.ctx.redis, this.index, this.held.lock);
  }

  /** An at-most-once job that succeeded: out of the index, its lock and running slots released. */
  async finishTaken(): Promise<void> {
    await releaseJob(this.ctx.redis, this.index, this.held.lock, this.fetched.job.jid, this.unlocked);
  }

  /** Unique until start: the lock goes as the job starts. */
  async releaseLockAtStart(): Promise<void> {
    const { job } = this.fetched;
    if (job.unique_key && job.unique_until === 'start') await releaseJob(this.ctx.redis, this.index, { lockKey: this.ctx.keys.uniqueLock(job.unique_key, this.fetched.queue), jid: job.jid });
  }

  /** The handler asked to run it again later: back in its queue with `nacks` raised. */
  nack(): Promise<boolean> {
    const { raw, job, queue } = this.fetched;
    const rewritten = rewriteMembers(raw, { nacks: String((Number.isInteger(job.nacks) ? job.nacks! : 0) + 1) });
    return this.requeue('back', rewritten);
  }

  /** Its run was cut short through no fault of its own (its thread was stopped for another job). */
  interrupted(): Promise<boolean> {
    return this.requeue('front');
  }

  private requeue(end: 'back' | 'front', rewritten?: string): Promise<boolean> {
    const { raw, job, queue } = this.fetched;
    const { keys, redis } = this.ctx;
    return requeueJob(redis, this.index, { backup: this.backup, queueKey: keys.queue(queue), queue, raw, rewritten, end, jid: job.jid }, this.unlocked);
  }

  /** Failure: to `retry`, to `dead` or dropped, by the job's retry rules. */
  async fail(error: JobError, atMostOnce = false): Promise<FailReport> {
    const { config, keys, redis } = this.ctx;
    const { raw: fetchedRaw, job } = this.fetched;
    // A job without a `queue` field (other producers) learns it here, or its retry would have none.
    const raw = typeof job.queue === 'string' ? fetchedRaw : rewriteMembers(fetchedRaw, { queue: JSON.stringify(this.fetched.queue) });
    const now = nowSeconds();
    const decision = atMostOnce ? decideFailure(raw, { ...job, retry: 0 }, error, { ...config, dialect: 'exq' }, now) : decideFailure(raw, job, error, config, now);
    const base = { backup: this.backup, raw: fetchedRaw, jid: job.jid, held: this.unlocked };
    const dead = { ...base, target: keys.dead(this.fetched.queue), place: 'dead' as const, score: now, trimBelow: now - config.deadTimeoutSeconds, maxEntries: config.deadMaxJobs };
    const previousCount = Number.isInteger(job.retry_count) ? (job.retry_count as number) : 0;
    if (atMostOnce) {
      // Already off the backup list: it is filed in the dead set for the record, never retried.
      if (decision.to !== 'discard') await failJob(redis, this.index, { ...dead, rewritten: decision.json, taken: true });
      else await releaseJob(redis, this.index, undefined, job.jid, this.unlocked);
      await this.releaseLock();
      return decision.to === 'discard'
        ? { to: 'discard', retryCount: previousCount, description: 'at most once: dropped, not retried' }
        : { to: 'dead', retryCount: decision.retryCount, description: 'at most once: moved to dead, not retried' };
    }
    switch (decision.to) {
      case 'retry':
        await failJob(redis, this.index, { ...base, rewritten: decision.json, target: keys.retry(this.fetched.queue), place: 'retry', score: decision.at });
        return { to: 'retry', retryCount: decision.retryCount, nextRetryAt: decision.at, description: `retry #${decision.retryCount} at ${new Date(decision.at * 1000).toISOString()}` };
      case 'dead':
        await failJob(redis, this.index, { ...dead, rewritten: decision.json });
        await this.releaseLock();
        return { to: 'dead', retryCount: decision.retryCount, description: 'out of retries, moved to dead' };
      case 'discard':
        await ackJob(redis, this.index, this.backup, fetchedRaw, job.jid, this.unlocked);
        await this.releaseLock();
        return { to: 'discard', retryCount: previousCount, description: 'discarded (retry: false or dead: false)' };
    }
  }

  /** Stopped on request (`cancel`): to the dead set with the reason `cancelled`, never retried. */
  cancelled(): Promise<boolean> {
    return this.bury('JobCancelledError', 'cancelled');
  }

  /** Never started before its ttl: to the dead set with the reason `expired`. */
  expire(): Promise<boolean> {
    return this.bury('JobExpiredError', 'expired');
  }

  private async bury(errorClass: string, reason: string): Promise<boolean> {
    const { config, keys, redis } = this.ctx;
    const now = nowSeconds();
    const entry = rewriteMembers(this.fetched.raw, {
      error_class: JSON.stringify(errorClass),
      error_message: JSON.stringify(reason),
      failed_at: jsonTimestamp(now, config.timestamps),
    });
    const filed = await failJob(redis, this.index, {
      backup: this.backup, target: keys.dead(this.fetched.queue), place: 'dead', raw: this.fetched.raw, rewritten: entry, jid: this.fetched.job.jid, score: now,
      trimBelow: now - config.deadTimeoutSeconds, maxEntries: config.deadMaxJobs, held: this.unlocked,
    });
    await this.releaseLock();
    return filed;
  }
}
