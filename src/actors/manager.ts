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
//     Redis error; an idle node also blocks on a queue and polls when a job arrives.
//  5. Bury payloads it cannot read in the dead set with the reason (never a crash loop).
//  5b. Put back backup entries no worker holds: after a failed fetch, and every
//     RECLAIM_INTERVAL_MS anyway (a fetch a client re-sent after a lost reply, as a cluster client
//     does when a master drops its connection, ran twice and reported only once).
//  6. Subscribe and unsubscribe queues at run time.
import { v4 as uuidv4 } from 'uuid';
import { Actor } from '../actor';
import { resolveQueue, ResolvedQueue } from '../../config/validate';
import { malformedEntry } from '../job/failure';
import { decodeJob, FetchedJob } from '../job/job';
import { jsonObject } from '../job/json-object';
import { nowSeconds } from '../job/time';
import { MiddlewarePipeline } from '../middleware';
import { backupQueuesOf } from '../redis/backups';
import { BlockingFetch } from '../redis/blocking-fetch';
import { ClassLimit, failJob, fetchJobs, requeueJob } from '../redis/scripts';
import { requeueBackup } from '../redis/move-scripts';
import { classLimits, dropNodeSlots, heldSlots } from '../job/limits';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';
import type { DynamicSupervisor } from '../../supervisors/dynamic-supervisor';
import { JobWorker } from './job-worker';
import { fetchOrder } from './slot-sharing';

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
  | { type: 'woken' };

/** Most jobs fetch.lua moves from one queue in one call (its MOST). */
const FETCH_MOST = 1000;

/** How long one blocking wait of an idle node lasts; regular polls go on meanwhile. */
export const IDLE_WAIT_SECONDS = 2;

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
  private waiting = false;
  private readonly classes: ClassLimit[];
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
        const wasIdle = this.table.busy(spec.name) === 0;
        this.queues = [...this.queues.filter((q) => q.name !== spec.name), spec];
        this.table.add(spec.name, spec.concurrency);
        // Its backup list holds jobs still running here unless the queue is idle on this node.
        if (wasIdle && this.ctx.rehydrated) await this.requeue(spec.name);
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
    if (msg.type === 'woken') {
      this.waiting = false;
      this.pollNow();
      return;
    }
    this.pollQueued = false;
    try {
      if (!this.ctx.rehydrated) await this.rehydrate();
      if (this.reclaimNeeded || Date.now() - this.lastReclaimAt >= RECLAIM_INTERVAL_MS) await this.reclaimUnworked();
      const got = await this.fetchAndDispatch();
      if (got > 0 && !this.drained) this.pollNow();
      else if (!this.waitingForSlots) {
        this.pollAfter(this.ctx.config.pollTimeout);
        // Jobs just fetched reach their threads on this turn's ticks (ThreadPool): let that
        // hand-off go first, ahead of the idle wait's round trips to Redis.
        if (got > 0) await new Promise((resolve) => setImmediate(resolve));
        await this.waitForWork();
      }
    } catch (err) {
      this.ctx.logger.error(`fetch failed, backing off: ${(err as Error).message}`, { actor: this.name });
      this.reclaimNeeded = true;
      this.pollAfter(this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
    }
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
    if (this.waiting || this.ctx.quiet || this.classes.length > 0) return;
    const now = Date.now();
    const queue = this.queues.find((q) => q.globalConcurrency === undefined && this.table.free(q.name) > 0 && !((this.brokenUntil.get(q.name) ?? 0) > now));
    if (!queue) return;
    const { keys } = this.ctx;
    if (await this.ctx.redis.hget(keys.paused(queue.name), queue.name)) return;
    this.waiting = true;
    const woken = () => this.send({ type: 'woken' });
    this.idleWait.wait(keys.queue(queue.name), IDLE_WAIT_SECONDS).then(woken, woken);
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
    const { keys, config, redis } = this.ctx;
    const queues = new Set([...this.queues.map((q) => q.name), ...(await backupQueuesOf(redis, keys, config.nodeId))]);
    // Nothing runs here yet: this node holds no slot of an earlier run.
    await dropNodeSlots(redis, config, keys);
    for (const queue of queues) {
      try {
        await this.requeue(queue);
      } catch (err) {
        // One broken key (say, not a list) must not keep the node from serving every other queue.
        if (!/WRONGTYPE/.test((err as Error).message)) throw err;
        this.queueFailed(queue, (err as Error).message);
      }
    }
    this.ctx.rehydrated = true;
  }

  /**
   * After a failed poll a fetch may have moved jobs whose reply never came: they sit in a backup
   * list with no worker. Put every backup entry no worker holds back at the head of its queue.
   */
  private async reclaimUnworked(): Promise<void> {
    const { keys, config, redis } = this.ctx;
    const inFlight = this.ctx.workers!.inFlight;
    // The queues it serves are looked at by key, not only through SCAN: mid-failover a cluster
    // client may not list a just-promoted master yet, and SCAN would miss the lists it holds.
    const queues = new Set([...this.queues.map((q) => q.name), ...(await backupQueuesOf(redis, keys, config.nodeId))]);
    for (const queue of queues) {
      const backup = keys.backup(config.nodeId, queue);
      if ((await redis.type(backup)) !== 'list') continue; // not ours to read; fetch reports the queue
      const unclaimed = inFlight.unclaimed(queue, await redis.lrange(backup, 0, -1));
      for (const raw of unclaimed) {
        // As the fetch read it: the class whose slot it took and the jid it indexed, if any.
        const job = (jsonObject(raw) ?? {});
        const held = { slots: heldSlots(config, keys, queue, job.class), nodeId: config.nodeId };
        const jid = typeof job.jid === 'string' ? job.jid : '';
        await requeueJob(redis, keys.jobIndex(queue), { backup, queueKey: keys.queue(queue), queue, raw, end: 'front', jid }, held);
      }
      if (unclaimed.length) this.ctx.logger.warn(`put ${unclaimed.length} job(s) no worker held back into queue ${queue}`, { actor: this.name });
    }
    this.reclaimNeeded = false;
    this.lastReclaimAt = Date.now();
  }

  private async requeue(queue: string): Promise<void> {
    const { keys, config, redis } = this.ctx;
    const moved = await requeueBackup(redis, keys, config.nodeId, queue);
    if (moved > 0) this.ctx.logger.info(`re-enqueued ${moved} unfinished job(s) of queue ${queue} from this node's backup`, { actor: this.name });
  }

  private async fetchAndDispatch(): Promise<number> {
    const { keys, config, redis } = this.ctx;
    if (this.ctx.quiet) return 0;
    const now = Date.now();
    // Under a node-wide cap the script takes from the queues in this order until the cap is reached.
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    const open = capLeft !== undefined && capLeft <= 0 ? [] : this.queues.filter((q) => this.table.free(q.name) > 0 && !((this.brokenUntil.get(q.name) ?? 0) > now));
    const ready = capLeft === undefined ? open : fetchOrder(open);
    // Waiting for a worker to free a slot only makes sense while some queue is merely full.
    const broken = this.queues.some((q) => (this.brokenUntil.get(q.name) ?? 0) > now);
    this.waitingForSlots = ready.length === 0 && this.queues.length > 0 && !broken;
    if (ready.length === 0) return 0;
    const fetchQueues = ready.map((q) => ({
      name: q.name,
      queueKey: keys.queue(q.name),
      backupKey: keys.backup(config.nodeId, q.name),
      runningKey: keys.running(q.name),
      count: this.table.free(q.name),
      globalLimit: q.globalConcurrency,
    }));
    const fetched = await fetchJobs(redis, keys, config.nodeId, fetchQueues, this.classes, capLeft);
    for (const [i, message] of fetched.errors) this.queueFailed(ready[i].name, message);
    // A call that failed may have moved jobs before its reply was lost: look for them before the next fetch.
    if (fetched.unsure) this.reclaimNeeded = true;
    for (const message of fetched.classErrors) this.ctx.logger.error(`a class limit's key is unusable, its jobs wait: ${message}`, { actor: this.name });
    this.drained = capLeft === undefined && this.classes.length === 0 && fetched.errors.length === 0 &&
      fetchQueues.every((q, i) => q.globalLimit === undefined && fetched.jobs[i].length < Math.min(q.count, FETCH_MOST));
    let count = 0;
    for (let i = 0; i < ready.length; i++) {
      for (const raw of fetched.jobs[i]) {
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
      return this.bury(backup, raw, queue, (err as Error).message);
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

  private async bury(backup: string, raw: string, queue: string, reason: string): Promise<void> {
    const { keys, config, redis } = this.ctx;
    const now = nowSeconds();
    this.ctx.logger.error(`unreadable job in queue ${queue} moved to dead: ${reason}`, { actor: this.name });
    const entry = malformedEntry(raw, reason, queue, uuidv4(), now);
    // JSON the decoder refused (a wrong field type, say) may still name a jid and a class: the
    // fetch indexed that jid and took that class's slot, so both are used here as it read them.
    const loose = (jsonObject(raw) ?? {});
    await failJob(redis, keys.jobIndex(queue), {
      backup, target: keys.dead(queue), place: 'dead', raw, rewritten: entry, jid: String(jsonObject(entry)?.jid ?? ''), score: now,
      trimBelow: now - config.deadTimeoutSeconds, maxEntries: config.deadMaxJobs,
      held: { slots: heldSlots(config, keys, queue, loose.class), nodeId: config.nodeId },
    });
  }
}

