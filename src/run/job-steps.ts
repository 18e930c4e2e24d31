// A fetched job's steps in Redis, each one atomic script: the two before it runs (an at-most-once
// job leaves its backup list; a unique-until-start job lets go of its lock), and the one that
// settles its fate (src/run/outcome.ts). This decides the keys, the script and what the job held
// (unique lock, running slots); the settle path (src/run/settle.ts) decides when. Every step keeps
// the job index in step (src/redis/job-index.ts).
import type { FetchedJob } from '../job/job';
import { heldSlots, throttled } from '../redis/limits';
import type { JobsContext } from './node-context';
import { ackJob, failJob, Held, releaseJob, requeueJob, throttle } from '../redis/settle-scripts';
import type { Fate } from './outcome';

export class JobSteps {
  private readonly held: Held;
  /** The job index its queue's jobs are in. */
  private readonly index: string;

  constructor(
    private readonly ctx: JobsContext,
    private readonly fetched: FetchedJob,
    private readonly backup: string,
  ) {
    const { job, queue } = fetched;
    const { config, keys } = ctx;
    this.index = keys.jobIndex(queue);
    this.held = {
      slots: heldSlots(config, keys, queue, job),
      nodeId: config.nodeId,
      lock:
        job.unique_key && job.unique_until === 'success'
          ? { lockKey: keys.uniqueLock(job.unique_key, queue), jid: job.jid }
          : undefined,
    };
  }

  private get unlocked(): Held {
    return { slots: this.held.slots, nodeId: this.held.nodeId };
  }

  /**
   * At-most-once: off the backup list before it runs (a crash from here on loses it, by request).
   * It keeps its running slots until it ends. False when it was no longer there.
   */
  takeOffBackup(): Promise<boolean> {
    return ackJob(
      this.ctx.redis,
      this.index,
      this.backup,
      this.fetched.raw,
      this.fetched.job.jid,
      { slots: [], nodeId: this.held.nodeId },
      true,
    );
  }

  /** An at-most-once job taken off its backup list that never started: back on the list it goes. */
  async putBackOnBackup(): Promise<void> {
    await this.ctx.redis.rpush(this.backup, this.fetched.raw);
  }

  /** Unique until start: the lock goes as the job starts. */
  async releaseLockAtStart(): Promise<void> {
    const { job, queue } = this.fetched;
    if (job.unique_key && job.unique_until === 'start')
      await releaseJob(this.ctx.redis, this.index, {
        lockKey: this.ctx.keys.uniqueLock(job.unique_key, queue),
        jid: job.jid,
      });
  }

  /**
   * Moves the job where its fate sends it, in one step. `taken`: an at-most-once job already off
   * its backup list, which is filed or forgotten regardless. A job no longer where this node put it
   * (recovered elsewhere meanwhile) is left alone by every script. `counted`: the run counts as
   * processed (src/run/settle.ts), added to its queue's counter by the same script (`nexq drain`).
   */
  async apply(fate: Fate, taken: boolean, counted: boolean): Promise<void> {
    const { config, keys, redis } = this.ctx;
    const { raw, job, queue } = this.fetched;
    const processed = counted ? keys.processed(queue) : undefined;
    switch (fate.to) {
      case 'stay':
        return;
      case 'done':
        if (taken) await releaseJob(redis, this.index, this.held.lock, job.jid, this.unlocked, processed);
        else await this.ack(processed);
        return;
      case 'queue':
        await requeueJob(
          redis,
          this.index,
          {
            backup: this.backup,
            queueKey: keys.queue(queue),
            queue,
            raw,
            rewritten: fate.json,
            end: fate.end,
            jid: job.jid,
            processed,
          },
          this.unlocked,
        );
        return;
      case 'retry':
        await failJob(redis, this.index, {
          backup: this.backup,
          raw,
          rewritten: fate.json,
          jid: job.jid,
          held: this.unlocked,
          target: keys.retry(queue),
          place: 'retry',
          score: fate.at,
          processed,
        });
        return;
      case 'dead': {
        const now = this.ctx.clock.now();
        await failJob(redis, this.index, {
          backup: this.backup,
          raw,
          rewritten: fate.json,
          jid: job.jid,
          held: this.unlocked,
          target: keys.dead(queue),
          place: 'dead',
          score: now,
          trimBelow: now - config.deadTimeoutSeconds,
          maxEntries: config.deadMaxJobs,
          taken,
          processed,
        });
        return this.releaseLock();
      }
      case 'discard':
        if (taken) await releaseJob(redis, this.index, undefined, job.jid, this.unlocked, processed);
        else await ackJob(redis, this.index, this.backup, raw, job.jid, this.unlocked, false, processed);
        return this.releaseLock();
    }
  }

  /**
   * The handler said the remote side throttles it: pauses its class (when rate-limited) or queue on
   * every node for `seconds` (a longer pause already set is kept). Says what it paused, for how long.
   */
  async throttle(seconds: number): Promise<string> {
    const { config, keys, redis } = this.ctx;
    const { rateKey, what } = throttled(config, keys, this.fetched.queue, this.fetched.job.class);
    const ms = await throttle(redis, rateKey, seconds * 1000);
    return `${what} paused on every node for ${ms / 1000} s`;
  }

  /**
   * Success: off the backup list and out of the index, letting go of its lock and slots. A plain
   * job's ack is batched (ack-batch.lua counts every job it acks as processed).
   */
  private ack(processed: string | undefined): Promise<boolean> {
    const { jobs, redis } = this.ctx;
    const { queue, raw, job } = this.fetched;
    if (!this.held.lock && this.held.slots.length === 0 && processed !== undefined)
      return jobs.acks.ack(queue, this.backup, raw, job.jid);
    return ackJob(redis, this.index, this.backup, raw, job.jid, this.held, false, processed);
  }

  /** A job finished without success (dead, dropped) lets go of its unique lock. */
  private async releaseLock(): Promise<void> {
    if (this.held.lock) await releaseJob(this.ctx.redis, this.index, this.held.lock);
  }
}
