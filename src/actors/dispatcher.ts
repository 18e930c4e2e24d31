// Starts the jobs a fetch took: each payload decoded (one that cannot be read, or is above
// maxPayloadBytes, goes to the dead set with the reason, never a crash loop), its slot taken in
// the table of running jobs, and one ephemeral JobRunner started for it under the job-runners
// supervisor. However the worker ends — even killed, when its terminate never runs — its slot
// comes back and the manager hears of it when its queue (or the node, under a cap) was full; a
// killed worker leaves its job in the backup list, and the manager is asked to reclaim that queue.
import { Actor, AnyActor } from '../runtime';
import { JobRunner } from './job-runner';
import { decodeJob, payloadTooLarge } from '../job/job';
import { MiddlewarePipeline } from '../run/middleware';
import type { JobsContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import { buryUnreadable } from '../run/bury-unreadable';
import { errorFields } from '../runtime/logger';
import type { RunningJob } from '../run/running-jobs';

/** What the dispatcher tells the manager (through its mailbox: the manager may have restarted). */
export interface DispatchEvents {
  /** A worker exited and its queue, or the node under its cap, had no free slot before. */
  slotFreed(queue: string): void;
  /** A worker was killed, or withdrawn before it started, with its job still in the backup list of `queue`. */
  reclaim(queue: string): void;
}

/** The job-runners supervisor, as the dispatcher uses it. */
interface JobRunners {
  startChild(spec: {
    id: string;
    start: () => Promise<AnyActor>;
    restart: 'temporary';
    shutdownMs: number;
  }): Promise<unknown>;
}

export class Dispatcher {
  private readonly pipeline: MiddlewarePipeline;

  constructor(
    private readonly ctx: JobsContext,
    private readonly events: DispatchEvents,
    private readonly actor: string,
  ) {
    this.pipeline = new MiddlewarePipeline(ctx.jobs.middleware);
  }

  async dispatch(queue: string, backup: string, raw: string): Promise<void> {
    const { ctx } = this;
    // A foreign producer's payload above the limit is not run (nexq's own enqueue refuses one).
    const tooLarge = payloadTooLarge(raw, ctx.config.maxPayloadBytes);
    if (tooLarge) return buryUnreadable(ctx, backup, raw, queue, tooLarge.message, this.actor, tooLarge.name);
    let job;
    try {
      job = decodeJob(raw);
    } catch (err) {
      return buryUnreadable(ctx, backup, raw, queue, (err as Error).message, this.actor);
    }
    const { running } = ctx.jobs;
    const entry = running.start(job.jid, queue, raw);
    const supervisor = ctx.registry.lookup<JobRunners & AnyActor>(ActorNames.jobRunners);
    const worker = new JobRunner({
      ctx,
      fetched: { raw, job, queue },
      backup,
      pipeline: this.pipeline,
      onExit: () => this.exited(entry, () => running.finish(entry)),
      onThreadDone: () => this.exited(entry, () => running.freeSlot(entry)),
      onStarted: () => running.started(entry),
    });
    running.attach(entry, worker);
    worker.exited
      .then((reason) => {
        worker.reportExit();
        // Killed, or never started, its job is still in the backup list: the reclaim puts it back.
        if (reason === 'killed' || worker.withdrawn) this.events.reclaim(queue);
      })
      .catch((err: unknown) =>
        ctx.logger.error(`after the runner of job ${job.jid} exited: ${errorFields(err).message}`, {
          actor: 'manager',
          error: errorFields(err),
        }),
      );
    try {
      await supervisor.startChild({
        id: job.jid,
        start: () => Actor.start(worker),
        restart: 'temporary',
        shutdownMs: ctx.config.shutdownTimeout,
      });
    } catch (err) {
      // The node is stopping: the job stays in the backup list and runs after the next boot.
      worker.reportExit();
      throw err;
    }
  }

  /** `release` gives the job's slot back (true when its queue was full): the manager hears of it if it needs to. */
  private exited(job: RunningJob, release: () => boolean): void {
    const { running } = this.ctx.jobs;
    const cap = this.ctx.config.totalConcurrency;
    const nodeWasFull = cap > 0 && running.slots.totalBusy() >= cap;
    // A queue that had free slots is fetched already, or waited on: only a full one needs a word.
    if (release() || nodeWasFull) this.events.slotFreed(job.queue);
  }
}
