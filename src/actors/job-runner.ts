// JobRunner: an ephemeral actor for one job, started by the manager under the job-runners
// supervisor and gone when the job is settled.
//
// Responsibilities:
//  1. Run the middleware `before` hooks, then the handler on a worker thread.
//  2. Say how the run ended, as one Outcome (src/run/outcome.ts), and hand it to the one settle
//     path (src/run/settle.ts): the fate, the Redis step (retried until it lands: until then the
//     job stays in the backup list, and a node that dies meanwhile re-runs it), the log line, the
//     job events and the after hooks. At least once, never lost.
//  3. Give its slot back when its handler succeeded (the settle still on its way) or when it exits,
//     however it exits (the manager's onExit).
//  4. On `cancel`, stop its job (the thread is terminated); it settles as cancelled.
//  5. Emit job:start when its handler starts on its thread (it may wait there for a slot: the
//     thread starts it, not this actor); say at warn when the stop's shutdownTimeout cuts it off,
//     with where the job is left.
//  6. Pass its handler's retry policy and its thread's backoff verdict to the settle path, and run
//     the handler's `exhausted` hook once a failure has filed the job in dead (src/run/exhausted-hook.ts).
import { Actor, ExitReason } from '../runtime';
import { hasExpired } from '../job/job';
import type { FetchedJob } from '../job/job';
import { jobErrorOf } from '../job/run-errors';
import { jobLogFields } from '../run/logging-middleware';
import type { JobEvent, MiddlewarePipeline } from '../run/middleware';
import type { JobsContext } from '../run/node-context';
import { JobSteps } from '../run/job-steps';
import { okOutcome, type Outcome } from '../run/outcome';
import { jobEventBase, settle, SettlingJob, untilItLands } from '../run/settle';
import type { CancelHandle } from '../pool/thread-pool';
import type { Resolved } from '../handlers/registry';
import { runExhaustedHook } from '../run/exhausted-hook';
import { EncryptedArgsError, openedPayload } from '../job/encryption';

export interface JobRunnerOptions {
  ctx: JobsContext;
  fetched: FetchedJob;
  backup: string;
  pipeline: MiddlewarePipeline;
  /** Called once when the worker exits and its slot is free again. */
  onExit: (fetched: FetchedJob) => void;
  /** Called when its handler succeeded: the slot is free for the next job while this one settles. */
  onThreadDone?: () => void;
  /** Called when its handler starts on its thread. */
  onStarted?: () => void;
}

type Cast = { type: 'run' };

export class JobRunner extends Actor<never, Cast> {
  private exitReported = false;
  /** Its job never started: taken back from its thread, it stays in the backup list for a reclaim. */
  withdrawn = false;
  private cancelRequested = false;
  /** Its fate is settled (or was never in its hands): a stop that kills it now cuts nothing off. */
  private done = false;
  private startedAt = Date.now();
  private readonly running: CancelHandle = {};
  private readonly job: SettlingJob;
  /** Its handler, once resolved: its retry policy and whether it has an `exhausted` hook. */
  private handler?: Resolved;
  /** Its payload with its args opened (when encrypted), as its handler's thread gets it. */
  private opened?: string;

  constructor(private readonly options: JobRunnerOptions) {
    super({ name: `job:${options.fetched.job.jid}` });
    const { ctx, fetched, backup, pipeline } = options;
    this.job = {
      ctx,
      fetched,
      pipeline,
      steps: new JobSteps(ctx, fetched, backup),
      taken: false,
      givingUp: () => this.stopping,
    };
  }

  protected override init(): void {
    this.cast({ type: 'run' });
  }

  protected override async handleCast(): Promise<void> {
    const outcome = await this.run();
    // Its thread is free: the next job starts while this one's ack is on its way to Redis (the
    // job stays held, so its backup entry is not reclaimed meanwhile).
    if (outcome.kind === 'success' || outcome.kind === 'nack') this.options.onThreadDone?.();
    const fate = await settle(this.job, outcome);
    this.done = true;
    // The handler's own `exhausted` hook, once the job is in dead; its slot is held meanwhile.
    if (fate.to === 'dead' && outcome.kind === 'failure' && this.handler?.exhausted)
      await runExhaustedHook(this.options.ctx, this.openedJob(), this.handler, outcome.error);
    this.stopSelf('normal');
  }

  /** Kills it (the stop's shutdownTimeout ran out): a job still running is said, with where it is left. */
  override kill(reason?: ExitReason): void {
    if (this.alive && !this.done) {
      const { ctx } = this.options;
      const fields = jobLogFields(this.options.fetched.job, this.options.fetched.queue);
      const left = this.job.taken
        ? 'at most once: it does not run again'
        : ctx.config.fixedNodeId
          ? `left in this node's backup list: it runs again when node ${ctx.config.nodeId} starts, or within nodeTimeout (${ctx.config.nodeTimeout} s) on another node`
          : 'put back in its queue as the node stops';
      ctx.logger.warn(
        `${fields.class} cut off by the stop (shutdownTimeout ${ctx.config.shutdownTimeout} ms); ${left}`,
        { ...fields, durationMs: Date.now() - this.startedAt },
      );
    }
    super.kill(reason);
  }

  /** Runs the job, from its checks before the start to its handler's end, and says how it ended. */
  private async run(): Promise<Outcome> {
    const { ctx, fetched, pipeline } = this.options;
    const { job, raw, queue } = fetched;
    const { steps } = this.job;
    if (hasExpired(job, ctx.clock.now())) return { kind: 'expired' };
    const atMostOnce = job.at_most_once === true;
    if (atMostOnce) {
      await untilItLands(this.job, async () => void (this.job.taken = await steps.takeOffBackup()));
      // Gone from the backup list already (recovered or reclaimed elsewhere): another copy runs.
      if (!this.job.taken) return { kind: 'superseded' };
    }
    if (this.cancelWasRequested()) return { kind: 'cancelled' };
    // Opened here, on the main thread, so the keys never reach a thread (where handler code and its
    // dependencies run); the backup list and every later step keep the envelope (`raw`).
    let opened: string;
    try {
      opened = this.opened = openedPayload(raw, job, ctx.encryption.ring);
    } catch (err) {
      if (err instanceof EncryptedArgsError) return { kind: 'unopened', error: jobErrorOf(err) };
      throw err;
    }
    // Only a job unique until its start has a step here: the others skip its promises.
    if (job.unique_key && job.unique_until === 'start') await untilItLands(this.job, () => steps.releaseLockAtStart());
    const event: JobEvent = {
      jid: job.jid,
      queue,
      className: job.class,
      job,
      raw,
      startedAt: (this.startedAt = Date.now()),
    };
    this.job.event = event;
    this.running.started = () => {
      event.startedAt = this.startedAt = Date.now();
      this.options.onStarted?.();
      if (ctx.events.has('job:start')) ctx.events.emit('job:start', jobEventBase(ctx, fetched));
    };
    try {
      await pipeline.before(event);
      if (this.cancelWasRequested()) return { kind: 'cancelled' };
      const handler = (this.handler = ctx.jobs.handlers.resolve(job.class, job.wrapped));
      const { file, activeJob, chunk } = handler;
      const slotsRow = ctx.jobs.running.slots.row(queue);
      const generation = ctx.jobs.pool.claims.generation;
      // A performMany handler's job waits for its chunk to form (src/pool/chunk-former.ts); under a
      // rate limit not at all: the fetch counted its start, so a chunk holds what one fetch took.
      const task = { raw: opened, file, activeJob, slotsRow, generation, ...(chunk ? { chunk } : {}) };
      if (task.chunk && this.rateLimited(queue, job.class)) task.chunk = { ...task.chunk, waitMs: 0 };
      const result = await ctx.jobs.pool.run(task, ctx.config.jobTimeout, this.running);
      const durationMs = Date.now() - event.startedAt;
      if (result.ok) return okOutcome(result, durationMs);
      // Killed by the stop after shutdownTimeout: this failure is the pool tearing down the thread,
      // not the job's. The job stays in the backup list and runs again after the next boot.
      if (!this.alive) return { kind: 'abandoned' };
      if (result.stopped === 'withdrawn') {
        this.withdrawn = true;
        return { kind: 'withdrawn' };
      }
      // Interrupted while its own cancel was on the way (its thread stopped for another): cancelled too.
      if (result.stopped === 'cancelled' || (result.stopped === 'interrupted' && this.cancelWasRequested()))
        return { kind: 'cancelled' };
      if (result.stopped === 'interrupted' && !atMostOnce) return { kind: 'interrupted' };
      if (result.retryProblem)
        ctx.logger.warn(
          `${handler.file}: ${result.retryProblem}; the default backoff applies`,
          jobLogFields(job, queue),
        );
      return {
        kind: 'failure',
        error: result.error,
        durationMs,
        retry: { policy: handler.retry, verdict: result.retryIn },
      };
    } catch (err) {
      // A before hook threw, or no handler is registered for the class (UnknownJobClassError, HANDLER_MISSING).
      return { kind: 'failure', error: jobErrorOf(err), durationMs: Date.now() - event.startedAt };
    }
  }

  /** The fetched job as its `exhausted` hook gets it: with its args opened. */
  private openedJob(): FetchedJob {
    const { fetched } = this.options;
    return this.opened === undefined ? fetched : { ...fetched, raw: this.opened };
  }

  protected override terminate(): void {
    this.reportExit();
  }

  /** Stops the job wherever it is: before it starts, or on its thread (which is terminated). */
  cancel(): void {
    this.cancelRequested = true;
    this.running.cancel?.();
  }

  /** Its queue or class has a rate limit across nodes (counted as the fetch took the job). */
  private rateLimited(queue: string, className: string): boolean {
    const { config } = this.options.ctx;
    return (
      config.queues.some((q) => q.name === queue && q.rateLimit !== undefined) ||
      Object.hasOwn(config.classRateLimits, className)
    );
  }

  /** Read through a call: `cancel` flips it while `run` awaits, which type narrowing cannot see. */
  private cancelWasRequested(): boolean {
    return this.cancelRequested;
  }

  /** Gives the slot back, once, whether the worker ran, crashed, or never got to start. */
  reportExit(): void {
    if (this.exitReported) return;
    this.exitReported = true;
    this.options.onExit(this.options.fetched);
  }
}
