// JobWorker: an ephemeral actor for one job, started by the manager under the job-workers
// supervisor and gone when the job is settled.
//
// Responsibilities:
//  1. Run the middleware `before` hooks, then the handler on a worker thread.
//  2. Settle the job in Redis: on success remove it from the backup list (ack); on failure file it
//     in `retry` or `dead` in the same atomic step that removes it from the backup list.
//     Redis errors while settling are retried with backoff: until the job is settled it stays in
//     the backup list, and a node that dies meanwhile re-runs it on boot. At least once, never lost.
//  3. Give its slot back in the work table when it exits, however it exits, and wake the manager.
//  4. On `cancel`, stop its job (the thread is terminated) and file it in the dead set as cancelled.
//  5. Emit the job events (start, success, failure, retry, dead) once each outcome is known,
//     building a payload only when someone listens.
//  6. Log its failure at warn with the handler's stack, and say at warn when the stop's
//     shutdownTimeout cuts it off, with where the job is left.
import { Actor, ExitReason } from '../actor';
import type { JobEventBase } from '../events/job-events';
import type { FetchedJob } from '../job/job';
import { nowSeconds } from '../job/time';
import type { JobEvent, MiddlewarePipeline } from '../middleware';
import { FailReport, Settlement } from '../job/settlement';
import { errorLogFields, jobLogFields } from '../logging-middleware';
import type { NodeContext } from '../node-context';
import type { CancelHandle } from '../thread-pool';
import type { JobOutcome } from '../../workers/protocol';

const SETTLE_RETRY_MIN_MS = 100;
const SETTLE_RETRY_MAX_MS = 2000;

export interface JobWorkerOptions {
  ctx: NodeContext;
  fetched: FetchedJob;
  backup: string;
  pipeline: MiddlewarePipeline;
  /** Called once when the worker exits and its slot is free again. */
  onExit: (fetched: FetchedJob) => void;
}

type Cast = { type: 'run' };

export class JobWorker extends Actor<never, Cast, never> {
  private exitReported = false;
  private cancelRequested = false;
  /** Its fate is settled (or was never in its hands): a stop that kills it now cuts nothing off. */
  private done = false;
  /** An at-most-once job taken off the backup list: cut off, it is gone, not re-run. */
  private taken = false;
  private startedAt = Date.now();
  private readonly running: CancelHandle = {};

  constructor(private readonly options: JobWorkerOptions) {
    super({ name: `job:${options.fetched.job.jid}` });
  }

  protected override init(): void {
    this.cast({ type: 'run' });
  }

  protected override async handleCast(): Promise<void> {
    await this.work();
    this.done = true;
    this.stopSelf('normal');
  }

  /** Kills it (the stop's shutdownTimeout ran out): a job still running is said, with where it is left. */
  override kill(reason?: ExitReason): void {
    if (this.alive && !this.done) {
      const { ctx } = this.options;
      const fields = this.logFields();
      const left = this.taken
        ? 'at most once: it does not run again'
        : ctx.config.fixedNodeId
          ? `left in this node's backup list: it runs again when node ${ctx.config.nodeId} starts, or within nodeTimeout (${ctx.config.nodeTimeout} s) on another node`
          : 'put back in its queue as the node stops';
      ctx.logger.warn(`${fields.class} cut off by the stop (shutdownTimeout ${ctx.config.shutdownTimeout} ms); ${left}`, { ...fields, durationMs: Date.now() - this.startedAt });
    }
    super.kill(reason);
  }

  private async work(): Promise<void> {
    const { ctx, fetched, pipeline } = this.options;
    const { job, raw, queue } = fetched;
    const settlement = new Settlement(ctx, fetched, this.options.backup);
    if (job.expires_at !== undefined && nowSeconds() > job.expires_at) {
      ctx.logger.warn(`${this.logFields().class} expired before it started; moved to dead`, this.logFields());
      await this.settle(() => settlement.expire());
      if (ctx.events.has('job:dead')) ctx.events.emit('job:dead', { ...this.eventBase(), error: { class: 'JobExpiredError', message: 'expired' } });
      return;
    }
    const atMostOnce = job.at_most_once === true;
    if (atMostOnce) {
      await this.settle(async () => void (this.taken = await settlement.takeOffBackup()));
      // Gone from the backup list already (recovered or reclaimed elsewhere): another copy runs.
      if (!this.taken) return;
    }
    if (this.cancelRequested) return this.cancelled(settlement, atMostOnce);
    await this.settle(() => settlement.releaseLockAtStart());
    const event: JobEvent = { jid: job.jid, queue, className: job.class, job, raw, startedAt: (this.startedAt = Date.now()) };
    if (ctx.events.has('job:start')) ctx.events.emit('job:start', this.eventBase());
    let outcome: JobOutcome;
    try {
      await pipeline.before(event);
      const { file, activeJob } = ctx.workers!.handlers.resolve(job.class, job.wrapped);
      outcome = this.cancelRequested
        ? { ok: false, stopped: 'cancelled', error: { class: 'JobCancelledError', message: 'cancelled' } }
        : await ctx.workers!.pool.run({ raw, file, activeJob }, ctx.config.jobTimeout, this.running);
    } catch (err) {
      const e = err as Error;
      outcome = { ok: false, error: { class: e?.name ?? 'Error', message: e?.message ?? String(err) } };
    }
    const durationMs = Date.now() - event.startedAt;
    if (!outcome.ok && !this.alive) {
      // Killed by the stop after shutdownTimeout: this failure is the pool tearing down the thread,
      // not the job's. The job stays in the backup list and runs again after the next boot.
      return;
    }
    // Interrupted while its own cancel was on the way (its thread stopped for another): cancelled too.
    if (!outcome.ok && (outcome.stopped === 'cancelled' || (outcome.stopped === 'interrupted' && this.cancelRequested))) {
      return this.cancelled(settlement, atMostOnce);
    }
    if (!outcome.ok && outcome.stopped === 'interrupted' && !atMostOnce) {
      await this.settle(() => settlement.interrupted());
      return;
    }
    if (outcome.ok) {
      if (outcome.nack && !atMostOnce) await this.settle(() => settlement.nack());
      else if (!atMostOnce) await this.settle(() => settlement.ack());
      else await this.settle(() => settlement.finishTaken());
      if (ctx.events.has('job:success')) ctx.events.emit('job:success', { ...this.eventBase(), durationMs });
      await this.after(() => pipeline.afterSuccess(event));
    } else {
      const error = outcome.error;
      let fate!: FailReport;
      await this.settle(async () => void (fate = await settlement.fail(error, atMostOnce)));
      const fields = this.logFields();
      ctx.logger.warn(`${fields.class} failed: ${error.class}: ${error.message}; ${fate.description}`, { ...fields, durationMs, error: errorLogFields(error) });
      this.emitFailure(error, fate, durationMs);
      await this.after(() => pipeline.afterFailure(event, error));
    }
  }

  protected override terminate(): void {
    this.reportExit();
  }

  /** Stops the job wherever it is: before it starts, or on its thread (which is terminated). */
  cancel(): void {
    this.cancelRequested = true;
    this.running.cancel?.();
  }

  private async cancelled(settlement: Settlement, atMostOnce: boolean): Promise<void> {
    const fields = this.logFields();
    this.options.ctx.logger.info(`${fields.class} cancelled; moved to dead`, fields);
    if (atMostOnce) await this.settle(() => settlement.fail({ class: 'JobCancelledError', message: 'cancelled' }, true));
    else await this.settle(() => settlement.cancelled());
  }

  /** Gives the slot back, once, whether the worker ran, crashed, or never got to start. */
  reportExit(): void {
    if (this.exitReported) return;
    this.exitReported = true;
    this.options.onExit(this.options.fetched);
  }

  /** The fields of every log line about the job (src/logging-middleware.ts). */
  private logFields() {
    return jobLogFields(this.options.fetched.job, this.options.fetched.queue);
  }

  /** What every job event says about the job; `class` is ActiveJob's wrapped class when there is one. */
  private eventBase(): JobEventBase {
    const { jid, queue, class: className, retryCount } = this.logFields();
    return { jid, queue, class: className, args: this.options.fetched.job.args, nodeId: this.options.ctx.config.nodeId, retryCount };
  }

  private emitFailure(raised: { class: string; message: string }, fate: FailReport, durationMs: number): void {
    const { events } = this.options.ctx;
    const error = { class: raised.class, message: raised.message };
    if (events.has('job:failure')) events.emit('job:failure', { ...this.eventBase(), durationMs, error });
    if (fate.to === 'retry' && events.has('job:retry')) {
      events.emit('job:retry', { ...this.eventBase(), retryCount: fate.retryCount, error, nextRetryAt: new Date(fate.nextRetryAt! * 1000) });
    } else if (fate.to === 'dead' && events.has('job:dead')) {
      events.emit('job:dead', { ...this.eventBase(), retryCount: fate.retryCount, error });
    }
  }

  /** Runs a Redis step until it succeeds; gives up (crashing, the job left in backup) only on stop. */
  private async settle(step: () => Promise<unknown>): Promise<void> {
    for (let delay = SETTLE_RETRY_MIN_MS; ; delay = Math.min(delay * 2, SETTLE_RETRY_MAX_MS)) {
      try {
        await step();
        return;
      } catch (err) {
        if (this.stopping) throw err;
        this.options.ctx.logger.warn(`settling the job failed, retrying: ${(err as Error).message}`, this.logFields());
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** After-hooks are observers: their errors are logged, the job is settled already. */
  private async after(hooks: () => Promise<void>): Promise<void> {
    try {
      await hooks();
    } catch (err) {
      this.options.ctx.logger.error(`middleware failed after the job: ${(err as Error).message}`, this.logFields());
    }
  }
}
