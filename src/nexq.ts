// The public API, Exq's in camelCase: start a node, enqueue jobs, manage subscriptions, stop.
// One file: the Nexq class is the API, each method a few lines that hand the call to its layer.
import { resolveQueue, ResolvedQueue } from '../config/queue-options';
import { API_SOURCE, ConfigSources, optionsOverEnv, unknownEnvWarnings } from '../config/load';
import { cancelJob } from './admin/cancel';
import { clearQueue } from './admin/clear';
import { killJob } from './admin/kill';
import { jobInfo, JobInfo } from './admin/job-info';
import { pausedQueues, pauseQueue, PauseMode, resumeQueue } from './admin/pause';
import { Schedules } from './admin/schedules';
import type { Enqueuer, EnqueueRequest, EnqueueResult } from './actors/enqueuer';
import type { Manager } from './actors/manager';
import type { ManagerCall } from './actors/manager-parts';
import { Batch, BatchOptions, newBatch } from './admin/batch';
import { batchStatus, BatchStatus, listBatches } from './admin/batch-status';
import type { JobOptions } from './job/job';
import { ActorNames, runsJobs } from './run/node-context';
import type { JobEvents } from './events/job-events';
import type { NodeMetrics } from './metrics/prometheus';
import { NexqNode, NodeStartOptions } from './node/node';
import { deleteJobByJid, locateJob } from './redis/job-index';
import { readResult, ResultWaiter } from './redis/results';
import { progressOf } from './admin/progress';
import { tracedEnqueue } from './tracing/enqueue-span';
import { waitingJobs } from './redis/fair-queue';
import { GroupInfo, groupsOf, pauseGroup } from './admin/groups';
import { jobPosition, JobPosition } from './admin/position';

export interface NexqStartOptions extends NodeStartOptions {
  /**
   * Where REDIS_URL and the NEXQ_* variables are read from, under the options given (which win):
   * `process.env` by default, as `nexq start` reads them; `false` reads none.
   */
  environment?: NodeJS.ProcessEnv | false;
}
export type { PauseMode };
export type { Batch, BatchOptions, BatchStatus };

export interface WaitForOptions {
  /** Milliseconds to wait for the result before rejecting with ResultTimeoutError (default 30000). */
  timeout?: number;
}

export type { JobInfo, JobPosition };

/** One job for `enqueueAll`: at most one of `at` and `in`. */
export type BulkJob = Omit<EnqueueRequest, 'bid'>;

export class Nexq {
  /** Opened at the first `waitFor`: one subscriber connection for every waiter. */
  private waiter?: ResultWaiter;
  private scheduleApi?: Schedules;

  private constructor(readonly node: NexqNode) {}

  /**
   * Starts a node: a full worker node, or a producer only with `mode: 'enqueuer'`. Options not
   * given come from the environment (REDIS_URL, NEXQ_*), as for `nexq start`, then the defaults.
   */
  static async start(options: NexqStartOptions = {}): Promise<Nexq> {
    const { environment = process.env, ...given } = options;
    if (environment === false) {
      // Every option is the program's own: the start line and a bad value's error say so.
      const sources = Object.fromEntries(Object.keys(given).map((key) => [key, API_SOURCE]));
      return new Nexq(await NexqNode.start(given, { sources, warnings: [] }));
    }
    const { config, sources } = optionsOverEnv(given, environment);
    return new Nexq(await NexqNode.start(config, { sources, warnings: unknownEnvWarnings(environment) }));
  }

  /** For the CLI, which laid the file, the environment and its flags itself (`sources`: where each came from). */
  static async startLayered(options: NodeStartOptions, sources: ConfigSources): Promise<Nexq> {
    return new Nexq(await NexqNode.start(options, { sources, warnings: [] }));
  }

  /**
   * Periodic jobs set at run time, kept in Redis and run by every node (once per tick across them):
   * `set(name, { cron, queue, class, args?, tz? })`, `remove(name)`, `list()`.
   */
  get schedules(): Schedules {
    return (this.scheduleApi ??= new Schedules(this.node.ctx));
  }

  /** Typed job events of this node (`job:start`, `job:success`, `job:failure`, `job:retry`, `job:dead`). */
  get events(): JobEvents {
    return this.node.events;
  }

  /**
   * This node's Prometheus metrics: `metrics.handler` serves them on any HTTP server's `/metrics`,
   * `metrics.registry` is its prom-client Registry. Counts from start with the `metrics` option.
   */
  get metrics(): NodeMetrics {
    return this.node.metrics;
  }

  /** Enqueues a job now; resolves to its jid. */
  enqueue(queue: string, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.send1({ queue, class: className, args, options });
  }

  /** Enqueues a job to run at `date`. */
  enqueueAt(queue: string, date: Date, className: string, args: unknown[] = [], options?: JobOptions): Promise<string> {
    return this.send1({ queue, class: className, args, at: date, options });
  }

  /** Enqueues a job to run `seconds` from now. */
  enqueueIn(
    queue: string,
    seconds: number,
    className: string,
    args: unknown[] = [],
    options?: JobOptions,
  ): Promise<string> {
    return this.send1({ queue, class: className, args, in: seconds, options });
  }

  /** Enqueues every job or none, in one round trip; resolves to their jids in order. */
  enqueueAll(jobs: BulkJob[]): Promise<string[]> {
    return this.send(jobs).then((results) => results.map((r) => r.jid));
  }

  /**
   * A new batch (Sidekiq Pro's): add jobs with `enqueue`/`enqueueAll` (or several calls inside
   * `jobs(async () => ...)`); its callbacks are jobs enqueued once each when every job ran
   * (`onComplete`), every job succeeded (`onSuccess`) and the first job died (`onDeath`).
   */
  batch(options: BatchOptions = {}): Batch {
    return newBatch(this.node.ctx, options);
  }

  /** Batch `bid`'s counts and failures; undefined once its data expired. */
  batchStatus(bid: string): Promise<BatchStatus | undefined> {
    return batchStatus(this.node.ctx, bid);
  }

  /** The newest batches first (at most `limit`), with their status. */
  batches(limit = 50): Promise<BatchStatus[]> {
    return listBatches(this.node.ctx, limit);
  }

  /** Like `enqueue`, saying whether a `unique` lock sent it to an existing job (`conflict`, with that jid). */
  async enqueueResult(
    queue: string,
    className: string,
    args: unknown[] = [],
    options?: JobOptions,
  ): Promise<EnqueueResult> {
    const [result] = await this.send([{ queue, class: className, args, options }]);
    return result;
  }

  /**
   * Everything about the job `jid` wherever it is — queued, running (on which node), scheduled,
   * waiting for a retry or dead — with its counters; undefined when nexq does not know it. Found
   * through the job index, without scanning (jobs other producers push are known once fetched).
   */
  async show(jid: string): Promise<JobInfo | undefined> {
    const found = await locateJob(this.node.ctx.redis, this.node.ctx.keys, jid);
    if (!found) return undefined;
    const info = jobInfo(found, this.node.ctx.encryption.ring);
    const progress =
      found.state === 'running' && found.node ? await progressOf(this.node.ctx, jid, found.node) : undefined;
    return progress === undefined ? info : { ...info, progress };
  }

  /**
   * Where is my job? For a job waiting in a queue, the jobs ahead of it (in its group too, in a fair
   * queue: an estimate) and when it may start at its queue's recent rate; else where it is
   * (running on a node, scheduled, in retry, dead). Undefined when nexq does not know it. Reads
   * are bounded (docs/jobs.md); InvalidJobError for a jid that is not a non-empty string.
   */
  position(jid: string): Promise<JobPosition | undefined> {
    return jobPosition(this.node.ctx, jid);
  }

  /** Moves the job `jid` from the retry set to the dead set now, unchanged; false when it is not in retry. */
  async killJob(jid: string): Promise<boolean> {
    return (await killJob(this.node.ctx, jid)).killed;
  }

  /**
   * A fair queue's groups with jobs waiting in them or running, paused, or busy this minute or the
   * last, most waiting first, each with its jobs started in the last 15 minutes and the limit holding
   * it back (by this node's limits where it serves the queue fair, else by those the live nodes
   * serving it say) (docs/fair-queues.md); `nexq groups <queue>` prints the same.
   */
  groups(queue: string): Promise<GroupInfo[]> {
    resolveQueue(queue, 1, 'queue');
    return groupsOf(this.node.ctx, queue);
  }

  /**
   * Pauses one group of a fair queue on every node: its jobs keep their place, none starts until
   * `resumeGroup` (jobs running go on). '' is the default group. False when it was paused already.
   */
  pauseGroup(queue: string, group: string): Promise<boolean> {
    resolveQueue(queue, 1, 'queue');
    return pauseGroup(this.node.ctx, queue, group);
  }

  /** Resumes a paused group of a fair queue; false when it was not paused. */
  resumeGroup(queue: string, group: string): Promise<boolean> {
    resolveQueue(queue, 1, 'queue');
    return pauseGroup(this.node.ctx, queue, group, false);
  }

  /** Deletes every job waiting in `queue` (with their unique locks) in one step; resolves to how many. */
  clearQueue(queue: string): Promise<number> {
    resolveQueue(queue, 1, 'queue');
    return clearQueue(this.node.ctx, queue);
  }

  /**
   * The result the job `jid` kept (its handler's return value, when it was enqueued with
   * `keepResult` or its handler exports `keepResult`); undefined when none is kept (not asked, not
   * succeeded yet, or expired).
   */
  async result(jid: string): Promise<unknown> {
    return (await readResult(this.node.ctx.redis, this.node.ctx.keys, jid, this.node.ctx.encryption.ring))?.value;
  }

  /**
   * The result of the job `jid` as soon as it is kept (woken by Redis pub/sub, not polled);
   * rejects with ResultTimeoutError after `timeout` ms. Only a job that keeps its result has one.
   */
  waitFor(jid: string, options: WaitForOptions = {}): Promise<unknown> {
    this.waiter ??= new ResultWaiter(() => this.node.ctx.redis, this.node.ctx.keys, this.node.ctx.encryption.ring);
    return this.waiter.waitFor(jid, options.timeout ?? 30_000);
  }

  /**
   * Deletes the job `jid` from its queue, the schedule, retry or dead set (releasing its unique
   * lock); false when nexq does not know it. A running job throws JobRunningError: cancel it.
   */
  deleteJob(jid: string): Promise<boolean> {
    return deleteJobByJid(this.node.ctx.redis, this.node.ctx.keys, jid);
  }

  /**
   * Cancels the running job `jid`, on whichever node runs it: its thread is terminated and the
   * job goes to the dead set with the reason `cancelled`. Resolves true once it is there; false
   * when the job is not running (or ended otherwise first). Other jobs that shared its thread run
   * again from their queue, not counted as failures. The request is repeated until it takes, so
   * one lost with a dropped connection is sent again.
   */
  cancel(jid: string, timeoutMs = 10_000): Promise<boolean> {
    return cancelJob(this.node.ctx, jid, timeoutMs);
  }

  /**
   * Pauses `queue` on every node (Disque's PAUSE): 'in' refuses enqueues with QueuePausedError,
   * 'out' stops every node fetching from it, 'all' both. Jobs already running finish.
   */
  pause(queue: string, mode: PauseMode = 'all'): Promise<void> {
    return pauseQueue(this.node.ctx, queue, mode);
  }

  resume(queue: string): Promise<void> {
    return resumeQueue(this.node.ctx, queue);
  }

  /** Paused queues and how (shared by every node). */
  paused(): Promise<Record<string, PauseMode>> {
    return pausedQueues(this.node.ctx);
  }

  /**
   * Resolves once this node's subscribed queues are empty and nothing runs here (gocraft's Drain),
   * for tests and batch scripts. Scheduled and retrying jobs are not waited for.
   */
  async drain(pollMs = 20): Promise<void> {
    const { ctx } = this.node;
    if (!runsJobs(ctx)) throw new Error('drain needs a worker node; this one runs in enqueuer mode');
    const { keys, redis, config } = ctx;
    for (;;) {
      const queues = (await this.subscriptions()).map((q) => q.name);
      // A job is queued (in a fair queue's groups too), or in this node's backup list from its
      // fetch until it is settled.
      const lengths = await Promise.all(
        queues.flatMap((q) => [waitingJobs(redis, keys, q), redis.llen(keys.backup(config.nodeId, q))]),
      );
      if (lengths.every((n) => n === 0) && ctx.jobs.running.size === 0) return;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Starts serving `queue` on this node (Exq's subscribe). */
  async subscribe(queue: string, concurrency?: number): Promise<void> {
    // Checked here: a bad name thrown inside the manager's call would crash it and lose every
    // subscription made at run time. Throws ConfigError, or KeyLayoutError for a name the
    // per-queue key layout cannot hold.
    resolveQueue({ name: queue, concurrency }, 1, 'queue');
    this.node.ctx.keys.queue(queue);
    await this.managerCall({ type: 'subscribe', queue, concurrency });
  }

  /** Stops fetching from `queue`; its running jobs finish. */
  async unsubscribe(queue: string): Promise<void> {
    await this.managerCall({ type: 'unsubscribe', queue });
  }

  async unsubscribeAll(): Promise<void> {
    await this.managerCall({ type: 'unsubscribe_all' });
  }

  /** The queues this node serves and their concurrency. */
  subscriptions(): Promise<ResolvedQueue[]> {
    return this.managerCall({ type: 'subscriptions' }) as Promise<ResolvedQueue[]>;
  }

  /** Graceful stop; jobs still running after `shutdownTimeout` run again after the next boot. */
  async stop(): Promise<void> {
    await this.waiter?.close();
    return this.node.stop();
  }

  /** Every enqueue goes through here: in a producer span when OpenTelemetry is present (src/tracing). */
  private send(requests: EnqueueRequest[]): Promise<EnqueueResult[]> {
    return tracedEnqueue(requests, (traced) => this.enqueuer.enqueueAllResults(traced));
  }

  private async send1(request: EnqueueRequest): Promise<string> {
    const [{ jid }] = await this.send([request]);
    return jid;
  }

  private get enqueuer(): Enqueuer {
    return this.node.ctx.registry.lookup<Enqueuer>(ActorNames.enqueuer);
  }

  private managerCall(msg: ManagerCall): Promise<unknown> {
    if (this.node.ctx.config.mode !== 'default') {
      return Promise.reject(new Error('subscriptions need a worker node; this one runs in enqueuer mode'));
    }
    return this.node.ctx.registry.lookup<Manager>(ActorNames.manager).call(msg);
  }
}
