// Manager: takes jobs from Redis for the queues this node serves, and starts a worker per job.
//
// Responsibilities:
//  1. On boot, put this node's backup lists (jobs a previous run of this node took and never
//     settled) back into their queues, before the first fetch.
//  2. Poll only the queues with free slots in the work table; one script call moves up to the free
//     count of jobs per queue into this node's backup lists (reliable fetch: a job is always in a
//     queue or a backup list, never in flight between them).
//  3. Start one ephemeral JobWorker per job under the job-workers supervisor, taking its slot.
//  4. Poll again at once after getting work (unless that fetch emptied the queues it read),
//     `pollTimeout` after an empty poll, when a full queue frees a slot, and back off after a
//     Redis error. An idle node also blocks on a queue with the fetch sent right behind the wait
//     (src/redis/blocking-fetch.ts): the job that wakes it is fetched by Redis as it arrives, and
//     that queue is left out of the polls until the wait's reply is handled, here in the mailbox.
//  5. Bury payloads it cannot read in the dead set with the reason (never a crash loop).
//  5b. Put back backup entries no worker holds: after a failed fetch, and every
//     RECLAIM_INTERVAL_MS anyway (a fetch a client re-sent after a lost reply, as a cluster client
//     does when a master drops its connection, ran twice and reported only once).
//  6. Subscribe and unsubscribe queues at run time.
import { Actor } from '../actor';
import { resolveQueue, ResolvedQueue } from '../../config/validate';
import { decodeJob, FetchedJob } from '../job/job';
import { MiddlewarePipeline } from '../middleware';
import { BlockingFetch } from '../redis/blocking-fetch';
import { ClassLimit, Fetched, fetchJobs, FetchQueue, ScriptedRedis } from '../redis/scripts';
import { classLimits } from '../job/limits';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';
import type { DynamicSupervisor } from '../../supervisors/dynamic-supervisor';
import { buryUnreadable } from './bury-unreadable';
import { JobWorker } from './job-worker';
import { fetchOrder } from './slot-sharing';
import { reclaimUnworked, rehydrateBackups, requeueOwnBackup } from './unworked-backups';

/** After a Redis error the next poll waits this many poll intervals (Exq's backoff). */
export const ERROR_BACKOFF_POLLS = 10;

export type ManagerCall =
  | { type: 'subscribe'; queue: string; concurrency?: number }
  | { type: 'unsubscribe'; queue: string }
  | { type: 'unsubscribe_all' }
  | { type: 'subscriptions' };

type Info =
  | { type: 'poll' }
  | { type: 'slot_freed'; queue: string }
  | { type: 'woken'; fetched?: Fetched; error?: Error };

/** Most jobs fetch.lua moves from one queue in one call (its MOST). */
const FETCH_MOST = 1000;

/** How long one blocking wait of an idle node lasts; regular polls go on meanwhile. */
export const IDLE_WAIT_SECONDS = 2;

/** After a failed idle wait the node polls, and waits again no sooner than this. */
const WAIT_RETRY_MS = 1000;

/** The longest a backup entry no worker holds waits before it goes back to its queue. */
export const RECLAIM_INTERVAL_MS = 10_000;

export class Manager extends Actor<ManagerCall, never, Info> {
  private queues: ResolvedQueue[];
  private readonly pipeline: MiddlewarePipeline;
  private pollTimer?: NodeJS.Timeout;
  private pollQueued = false;
  private waitingForSlots = false;
  private reclaimNeeded = false;
  private lastReclaimAt = Date.now();
  /** Queues whose keys Redis refused (e.g. WRONGTYPE), left out of fetches until then. */
  private readonly brokenUntil = new Map<string, number>();
  private readonly idleWait: BlockingFetch;
  /**
   * The queue an idle wait (with its fetch) is out on, and the jobs that fetch may take: its
   * slots are spoken for and the polls leave it out until the `woken` info is handled. Nor does
   * anything put its backup entries back meanwhile: the fetch may have moved jobs not dispatched yet.
   */
  private waitingOn?: FetchQueue;
  /** After a failed wait the node only polls until then (no tight loop of failing waits). */
  private noWaitUntil = 0;
  private readonly classes: ClassLimit[];
  private readonly confirmsWrites: boolean;
  /**
   * The last fetch emptied every queue it read: each gave fewer jobs than asked for, and nothing
   * but its length limited it (no limit across nodes, no class limit, no node-wide cap). Fetching
   * again at once would find nothing, so the manager goes straight to its idle wait.
   */
  private drained = false;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.manager, registry: ctx.registry });
    this.queues = [...ctx.config.queues];
    this.pipeline = new MiddlewarePipeline(ctx.workers!.middleware);
    this.idleWait = new BlockingFetch(ctx.redis);
    this.classes = classLimits(ctx.config, ctx.keys);
    this.confirmsWrites = typeof ctx.config.redis !== 'string' && (ctx.config.redis.waitReplicas ?? 0) > 0;
  }

  /** The queues this node serves, with their concurrency. */
  get subscriptions(): ResolvedQueue[] {
    return this.queues.map((q) => ({ ...q }));
  }

  private get table() {
    return this.ctx.workers!.workTable;
  }

  protected override init(): void {
    for (const q of this.queues) this.table.add(q.name, q.concurrency);
    // A restarted manager cannot know what its predecessor's last fetch moved: reclaim first.
    if (this.ctx.rehydrated) this.reclaimNeeded = true;
    this.pollNow();
  }

  protected override async handleCall(msg: ManagerCall): Promise<unknown> {
    switch (msg.type) {
      case 'subscribe': {
        const configured = this.ctx.config.queues.find((q) => q.name === msg.queue);
        const spec = resolveQueue({ ...configured, name: msg.queue, concurrency: msg.concurrency ?? configured?.concurrency }, this.ctx.config.concurrency, 'queue');
        const wasIdle = this.table.busy(spec.name) === 0 && this.waitingOn?.name !== spec.name;
        this.queues = [...this.queues.filter((q) => q.name !== spec.name), spec];
        this.table.add(spec.name, spec.concurrency);
        // Its backup list holds jobs still running here unless the queue is idle on this node.
        if (wasIdle && this.ctx.rehydrated) await requeueOwnBackup(this.ctx, spec.name, this.name);
        this.pollNow();
        return 'ok';
      }
      case 'unsubscribe':
        this.queues = this.queues.filter((q) => q.name !== msg.queue);
        this.table.remove(msg.queue);
        return 'ok';
      case 'unsubscribe_all':
        for (const q of this.queues) this.table.remove(q.name);
        this.queues = [];
        return 'ok';
      case 'subscriptions':
        return this.subscriptions;
    }
  }

  protected override async handleInfo(msg: Info): Promise<void> {
    if (msg.type === 'slot_freed') {
      if (this.waitingForSlots) this.pollNow();
      return;
    }
    try {
      if (msg.type === 'woken') return await this.woken(msg.fetched, msg.error);
      this.pollQueued = false;
      if (!this.ctx.rehydrated) await this.rehydrate();
      await this.reclaimIfDue();
      await this.afterFetch(await this.fetchAndDispatch());
    } catch (err) {
      this.ctx.logger.error(`fetch failed, backing off: ${(err as Error).message}`, { actor: this.name });
      this.reclaimNeeded = true;
      this.pollAfter(this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
    }
  }

  /** What follows a fetch that dispatched `got` jobs: fetch again, or wait for work. */
  private async afterFetch(got: number): Promise<void> {
    if (got > 0 && !this.drained) return this.pollNow();
    if (this.waitingForSlots) return;
    this.pollAfter(this.ctx.config.pollTimeout);
    // Jobs just fetched reach their threads on this turn's ticks (ThreadPool): let that
    // hand-off go first, ahead of the idle wait's round trips to Redis.
    if (got > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.waitForWork();
  }

  /** The idle wait answered: dispatch what its fetch took, then go on as after any fetch. */
  private async woken(fetched: Fetched | undefined, error: Error | undefined): Promise<void> {
    const queue = this.waitingOn;
    this.waitingOn = undefined;
    if (!queue) return this.pollNow();
    if (!fetched && !error) return this.pollNow(); // a wait without a fetch: a job is there
    if (!fetched) {
      // Its fetch may have run with its reply lost: the jobs it took wait in the backup list.
      this.ctx.logger.warn(`the idle wait failed: ${error?.message}; polling meanwhile`, { actor: this.name });
      this.reclaimNeeded = true;
      this.noWaitUntil = Date.now() + WAIT_RETRY_MS;
      return this.pollNow();
    }
    const spec = this.queues.find((q) => q.name === queue.name);
    if (this.ctx.quiet || !spec || !this.table.isActive(queue.name)) {
      // Quiet, or the queue was left meanwhile: what the fetch took goes back to its queue.
      if (fetched.jobs[0].length > 0) await this.reclaim();
      return this.pollNow();
    }
    const got = await this.dispatchFetched([spec], [queue], fetched);
    this.waitingForSlots = false; // as the poll left it, when the waited queue was the only one open
    await this.reclaimIfDue();
    await this.afterFetch(got);
  }

  protected override terminate(): void {
    this.idleWait.close();
    this.cancelTimer(this.pollTimer);
  }

  /**
   * Idle: wait on the first plain queue (no global limit, not paused, a free slot) so a job
   * enqueued there starts at once; the wake-up comes back as a `woken` info, keeping the mailbox
   * free, and a fetch takes the job. Limits across nodes can leave a queue full of jobs none of
   * which may start yet, so with class limits the node polls instead.
   */
  private async waitForWork(): Promise<void> {
    const now = Date.now();
    if (now < this.noWaitUntil) return this.pollAfter(Math.min(this.ctx.config.pollTimeout, this.noWaitUntil - now));
    if (this.waitingOn || this.ctx.quiet || this.classes.length > 0) return;
    const { config, keys } = this.ctx;
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    if (capLeft !== undefined && capLeft <= 0) return;
    const queue = this.queues.find((q) => q.globalConcurrency === undefined && this.table.free(q.name) > 0 && !((this.brokenUntil.get(q.name) ?? 0) > now));
    if (!queue) return;
    if (await this.ctx.redis.hget(keys.paused(queue.name), queue.name)) return;
    const fetchQueue = this.fetchQueueOf(queue);
    this.waitingOn = fetchQueue;
    // With waitReplicas a fetch counts once replicas hold it, which the shared connection sees
    // to: the wait only wakes the manager, and a poll fetches.
    const fetch = this.confirmsWrites ? undefined : (connection: ScriptedRedis) => fetchJobs(connection, keys, config.nodeId, [fetchQueue], [], capLeft);
    this.idleWait
      .waitThenFetch(fetchQueue.queueKey, IDLE_WAIT_SECONDS, fetch)
      .then(
        (fetched) => this.send({ type: 'woken', fetched }),
        (error: Error) => this.send({ type: 'woken', error }),
      );
  }

  private fetchQueueOf(q: ResolvedQueue): FetchQueue {
    const { keys, config } = this.ctx;
    return {
      name: q.name,
      queueKey: keys.queue(q.name),
      backupKey: keys.backup(config.nodeId, q.name),
      runningKey: keys.running(q.name),
      count: this.table.free(q.name),
      globalLimit: q.globalConcurrency,
    };
  }

  /** A worker was killed with its job in the backup list: reclaim before the next fetch. */
  needReclaim(): void {
    this.reclaimNeeded = true;
  }

  private pollNow(): void {
    this.cancelTimer(this.pollTimer);
    this.pollTimer = undefined;
    if (!this.pollQueued) {
      this.pollQueued = true;
      this.send({ type: 'poll' });
    }
  }

  private pollAfter(ms: number): void {
    this.cancelTimer(this.pollTimer);
    this.pollTimer = this.sendAfter({ type: 'poll' }, ms);
  }

  /** Puts every backup list of this node back into its queue. */
  private async rehydrate(): Promise<void> {
    await rehydrateBackups(this.ctx, this.queues.map((q) => q.name), this.name, (queue, message) => this.queueFailed(queue, message));
    this.ctx.rehydrated = true;
  }

  /** Reclaims when asked to or every RECLAIM_INTERVAL_MS, never while a wait's fetch may be out. */
  private async reclaimIfDue(): Promise<void> {
    if (this.waitingOn) return;
    if (this.reclaimNeeded || Date.now() - this.lastReclaimAt >= RECLAIM_INTERVAL_MS) await this.reclaim();
  }

  /**
   * After a failed poll a fetch may have moved jobs whose reply never came: they sit in a backup
   * list with no worker. Put every backup entry no worker holds back at the head of its queue.
   */
  private async reclaim(): Promise<void> {
    await reclaimUnworked(this.ctx, this.queues.map((q) => q.name), this.name);
    this.reclaimNeeded = false;
    this.lastReclaimAt = Date.now();
  }

  private async fetchAndDispatch(): Promise<number> {
    const { keys, config, redis } = this.ctx;
    if (this.ctx.quiet) return 0;
    const now = Date.now();
    // Under a node-wide cap the script takes from the queues in this order until the cap is reached.
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    const open = capLeft !== undefined && capLeft <= 0 ? [] : this.queues.filter((q) => q.name !== this.waitingOn?.name && this.table.free(q.name) > 0 && !((this.brokenUntil.get(q.name) ?? 0) > now));
    const ready = capLeft === undefined ? open : fetchOrder(open);
    // Waiting for a worker to free a slot only makes sense while some queue is merely full.
    const broken = this.queues.some((q) => (this.brokenUntil.get(q.name) ?? 0) > now);
    this.waitingForSlots = ready.length === 0 && this.queues.length > 0 && !broken && !this.waitingOn;
    if (ready.length === 0) return 0;
    const fetchQueues = ready.map((q) => this.fetchQueueOf(q));
    const fetched = await fetchJobs(redis, keys, config.nodeId, fetchQueues, this.classes, capLeft);
    return this.dispatchFetched(ready, fetchQueues, fetched);
  }

  /** Starts a worker per job a fetch took (a poll's or an idle wait's); returns how many. */
  private async dispatchFetched(ready: ResolvedQueue[], fetchQueues: FetchQueue[], fetched: Fetched): Promise<number> {
    for (const [i, message] of fetched.errors) this.queueFailed(ready[i].name, message);
    // A call that failed may have moved jobs before its reply was lost: look for them before the next fetch.
    if (fetched.unsure) this.reclaimNeeded = true;
    for (const message of fetched.classErrors) this.ctx.logger.error(`a class limit's key is unusable, its jobs wait: ${message}`, { actor: this.name });
    const capped = this.ctx.config.totalConcurrency > 0;
    this.drained = !capped && this.classes.length === 0 && fetched.errors.length === 0 &&
      fetchQueues.every((q, i) => q.globalLimit === undefined && fetched.jobs[i].length < Math.min(q.count, FETCH_MOST));
    let count = 0;
    for (let i = 0; i < ready.length; i++) {
      for (const raw of fetched.jobs[i]) {
        // A queue whose concurrency was lowered while an idle wait was out: the rest go back.
        if (this.table.free(ready[i].name) <= 0) {
          this.reclaimNeeded = true;
          continue;
        }
        count++;
        await this.dispatch(ready[i].name, fetchQueues[i].backupKey, raw);
      }
    }
    return count;
  }

  private async dispatch(queue: string, backup: string, raw: string): Promise<void> {
    let job;
    try {
      job = decodeJob(raw);
    } catch (err) {
      return buryUnreadable(this.ctx, backup, raw, queue, (err as Error).message, this.name);
    }
    this.table.take(queue);
    this.ctx.workers!.inFlight.add(queue, raw);
    const supervisor = this.ctx.registry.lookup<DynamicSupervisor>(ActorNames.jobWorkers);
    const worker = new JobWorker({
      ctx: this.ctx,
      fetched: { raw, job, queue },
      backup,
      pipeline: this.pipeline,
      onExit: (done) => this.onWorkerExit(done),
    });
    // However the worker ends — even killed, when its terminate never runs — its slot comes back;
    // a killed worker leaves its job in the backup list, so the next poll reclaims it.
    this.ctx.workers!.inFlight.track(job.jid, worker);
    void worker.exited.then((reason) => {
      this.ctx.workers!.inFlight.untrack(job.jid, worker);
      worker.reportExit();
      if (reason === 'killed') this.ctx.registry.whereis<Manager>(ActorNames.manager)?.needReclaim();
    });
    try {
      await supervisor.startChild({ id: job.jid, start: () => Actor.start(worker), restart: 'temporary', shutdownMs: this.ctx.config.shutdownTimeout });
    } catch (err) {
      // The node is stopping: the job stays in the backup list and runs after the next boot.
      this.ctx.workers!.inFlight.untrack(job.jid, worker);
      worker.reportExit();
      throw err;
    }
  }

  /** One queue's keys are unusable: say so, and leave it out for a while; the others go on. */
  private queueFailed(queue: string, message: string): void {
    this.ctx.logger.error(`cannot fetch from queue ${queue}: ${message}; trying it again later`, { actor: this.name });
    this.brokenUntil.set(queue, Date.now() + this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
  }

  private onWorkerExit({ queue, raw }: FetchedJob): void {
    this.ctx.workers!.inFlight.remove(queue, raw);
    const cap = this.ctx.config.totalConcurrency;
    const nodeWasFull = cap > 0 && this.table.totalBusy() >= cap;
    const wasFull = this.table.release(queue) || nodeWasFull;
    // Whichever manager is running now (this one may have been restarted) hears about it.
    if (wasFull) this.ctx.registry.whereis<Manager>(ActorNames.manager)?.send({ type: 'slot_freed', queue });
  }
}
