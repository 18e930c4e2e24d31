// Manager: takes jobs from Redis for the queues this node serves, and starts a worker per job.
//
// Responsibilities:
//  1. On boot, put this node's backup lists (jobs a previous run of this node took and never
//     settled) back into their queues, before the first fetch.
//  2. Do what the fetch policy (src/fetch/policy.ts, pure) decides from each queue's state: fetch
//     the queues that may hold work and have free slots (one script call moves up to each one's
//     free count of jobs into this node's backup lists: reliable fetch), wait on the empty ones
//     (src/fetch/idle-waits.ts: one blocking connection per queue, the fetch sent behind the wait),
//     and poll the limited and paused ones every `pollTimeout`. A freed slot of a full queue, a
//     wait's answer and every fetch make it decide again, so no queue waits on another's state.
//  3. Hand what each fetch took to the dispatcher (src/run/dispatcher.ts: one JobRunner per job).
//  4. Leave a queue whose keys fail out for a while, and back off after a Redis error.
//  5. Have the reclaimer (src/fetch/reclaimer.ts) put back backup entries no worker holds.
//  6. Subscribe and unsubscribe queues at run time.
//  7. Crash when ioredis ends one of its idle-wait connections for good (src/redis/ended.ts): the
//     restarted manager opens fresh ones and reclaims what the old waits may have moved.
import { Actor } from '../runtime';
import { resolveQueue, ResolvedQueue } from '../../config/validate';
import { COMMAND_TIMEOUT_MS } from '../redis/connection';
import { ClassLimit, Fetched, fetchJobs, FetchQueue } from '../redis/scripts';
import { classLimits } from '../redis/limits';
import type { JobsContext } from '../node/context';
import { ActorNames } from '../node/context';
import { IdleWaits } from '../fetch/idle-waits';
import { rehydrateBackups, requeueOwnBackup } from '../fetch/own-backups';
import { decideFetch, QueueState } from '../fetch/policy';
import { fetchOrder } from '../fetch/queue-order';
import { Reclaimer } from '../fetch/reclaimer';
import { Dispatcher } from '../run/dispatcher';

/**
 * How long the manager's stop may take: long enough for a poll's Redis calls to time out, since a
 * killed manager would skip the terminate that closes its blocking connections.
 */
export const MANAGER_SHUTDOWN_MS = COMMAND_TIMEOUT_MS + 2000;

/** After a Redis error the next poll waits this many poll intervals (Exq's backoff). */
export const ERROR_BACKOFF_POLLS = 10;

export type ManagerCall =
  | { type: 'subscribe'; queue: string; concurrency?: number }
  | { type: 'unsubscribe'; queue: string }
  | { type: 'unsubscribe_all' }
  | { type: 'subscriptions' };

type Info =
  | { type: 'poll'; due?: true }
  | { type: 'slot_freed'; queue: string }
  | { type: 'reclaim'; queue: string }
  | { type: 'woken'; queue: string; fetched?: Fetched; error?: Error }
  | { type: 'connection_ended'; error: Error };

/** How long one blocking wait of an idle queue lasts before it is sent again. */
export const IDLE_WAIT_SECONDS = 2;

/** After a failed idle wait the node polls, and waits again no sooner than this. */
const WAIT_RETRY_MS = 1000;

/** A served queue with what the last fetch from it said. */
interface ServedQueue extends ResolvedQueue {
  state: QueueState;
  /** Epoch ms until which its keys are left alone after Redis refused them (e.g. WRONGTYPE). */
  brokenUntil: number;
}

export class Manager extends Actor<ManagerCall, never, Info> {
  private queues: ServedQueue[];
  private readonly waits: IdleWaits;
  private readonly reclaimer: Reclaimer;
  private readonly dispatcher: Dispatcher;
  private readonly classes: ClassLimit[];
  /** With waitReplicas a fetch counts once replicas hold it: waits only wake, a poll fetches. */
  private readonly confirmsWrites: boolean;
  private pollTimer?: NodeJS.Timeout;
  private pollTimerAt = Infinity;
  private pollQueued = false;
  /** The poll timer fired: limited and paused queues are fetched on this round. */
  private pollDue = true;
  /** After a Redis error nothing is fetched until then (the poll timer ends the backoff). */
  private backoffUntil = 0;
  /** After a failed wait the node only polls until then (no tight loop of failing waits). */
  private noWaitUntil = 0;

  constructor(private readonly ctx: JobsContext) {
    super({ name: ActorNames.manager, registry: ctx.registry });
    this.queues = ctx.config.queues.map(toServed);
    // An idle-wait connection ioredis ended by itself: crash, the restart starts afresh.
    this.waits = new IdleWaits(
      () => ctx.redis,
      (error) => this.send({ type: 'connection_ended', error }),
    );
    this.reclaimer = new Reclaimer(ctx, this.name);
    // A job's runner outlives a restart of the manager that started it: it tells whichever runs now.
    const current = () => ctx.registry.whereis<Manager>(ActorNames.manager);
    this.dispatcher = new Dispatcher(
      ctx,
      {
        slotFreed: (queue) => current()?.send({ type: 'slot_freed', queue }),
        reclaim: (queue) => current()?.send({ type: 'reclaim', queue }),
      },
      this.name,
    );
    this.classes = classLimits(ctx.config, ctx.keys);
    this.confirmsWrites = typeof ctx.config.redis !== 'string' && (ctx.config.redis.waitReplicas ?? 0) > 0;
  }

  /** The queues this node serves, with their concurrency. */
  get subscriptions(): ResolvedQueue[] {
    return this.queues.map(({ state: _s, brokenUntil: _b, ...q }) => q);
  }

  private served(name: string): ServedQueue | undefined {
    return this.queues.find((q) => q.name === name);
  }

  /** Free and busy slots per queue: the shared work table. */
  private get table() {
    return this.ctx.jobs.running.slots;
  }

  protected override init(): void {
    // A restarted manager serves the configured queues again: the table says so to its readers.
    for (const q of this.table.subscribed())
      if (!this.queues.some((served) => served.name === q.name)) this.table.remove(q.name);
    for (const q of this.queues) this.table.add(q.name, q.concurrency);
    // A restarted manager cannot know what its predecessor's last fetch moved: reclaim first.
    if (this.ctx.rehydrated) this.reclaimer.everything();
    this.pollNow();
  }

  protected override async handleCall(msg: ManagerCall): Promise<unknown> {
    switch (msg.type) {
      case 'subscribe': {
        const configured = this.ctx.config.queues.find((q) => q.name === msg.queue);
        const spec = resolveQueue(
          { ...configured, name: msg.queue, concurrency: msg.concurrency ?? configured?.concurrency },
          this.ctx.config.concurrency,
          'queue',
        );
        const wasIdle = this.table.busy(spec.name) === 0 && !this.waits.has(spec.name);
        this.queues = [...this.queues.filter((q) => q.name !== spec.name), toServed(spec)];
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
      this.pollNow();
      return;
    }
    if (msg.type === 'reclaim') {
      this.reclaimer.queue(msg.queue);
      this.pollNow();
      return;
    }
    if (msg.type === 'connection_ended') throw msg.error;
    try {
      if (msg.type === 'woken') await this.woken(msg.queue, msg.fetched, msg.error);
      else await this.poll(msg.due === true);
    } catch (err) {
      this.ctx.logger.error(`fetch failed, backing off: ${(err as Error).message}`, { actor: this.name });
      this.reclaimer.everything();
      this.backoffUntil = Date.now() + this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS;
      this.pollAt(this.backoffUntil);
    }
  }

  /** One round: what the policy says to fetch is fetched and dispatched, what it says to wait on is waited on. */
  private async poll(due: boolean): Promise<void> {
    this.pollQueued = false;
    if (due) {
      this.pollTimerAt = Infinity;
      this.pollDue = true;
    }
    const now = Date.now();
    if (now < this.backoffUntil) {
      this.pollAt(this.backoffUntil);
      return;
    }
    if (!this.ctx.rehydrated) await this.rehydrate();
    await this.reclaimIfDue();
    const { config } = this.ctx;
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    const views = this.queues.map((q) => ({ ...q, free: this.table.free(q.name), waiting: this.waits.has(q.name) }));
    const node = {
      now,
      quiet: this.ctx.quiet,
      capLeft,
      pollDue: this.pollDue,
      pollTimeout: config.pollTimeout,
      noWaitUntil: this.noWaitUntil,
    };
    const decision = decideFetch(views, node, fetchOrder);
    this.pollDue = false;
    if (decision.pollIn !== undefined) this.pollAt(now + decision.pollIn);
    for (const name of decision.wait) this.startWait(name, capLeft !== undefined);
    if (decision.fetch.length === 0) return;
    const fetchQueues = decision.fetch.map((name) => this.fetchQueueOf(this.served(name)!));
    const fetched = await fetchJobs(this.ctx.redis, this.ctx.keys, config.nodeId, fetchQueues, this.classes, capLeft);
    await this.dispatchFetched(fetchQueues, fetched);
    this.pollNow(); // the states changed: decide again
  }

  /** An idle wait answered: dispatch what its fetch took, then decide again. */
  private async woken(queue: string, fetched: Fetched | undefined, error: Error | undefined): Promise<void> {
    const waited = this.waits.answered(queue);
    const spec = this.served(queue);
    if (!spec) this.waits.close(queue);
    if (!waited) {
      this.pollNow();
      return;
    }
    if (error) {
      // Its fetch may have run with its reply lost: the jobs it took wait in the backup list.
      this.ctx.logger.warn(`the idle wait on queue ${queue} failed: ${error.message}; polling meanwhile`, {
        actor: this.name,
      });
      this.reclaimer.queue(queue);
      this.noWaitUntil = Date.now() + WAIT_RETRY_MS;
    } else if (!fetched) {
      if (spec) spec.state = 'unknown'; // a wake alone: a job is there, a poll fetches it
    } else if (this.ctx.quiet || !spec || !this.table.isActive(queue)) {
      // Quiet, or the queue was left meanwhile: what the fetch took goes back to its queue.
      if (fetched.jobs[0].length > 0) this.reclaimer.queue(queue);
    } else {
      await this.dispatchFetched([waited], fetched);
      // The jobs just dispatched reach their threads on this turn's ticks (ThreadPool): let that
      // hand-off go first, ahead of the next decision's round trips to Redis.
      if (fetched.jobs[0].length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await this.reclaimIfDue();
    this.pollNow();
  }

  protected override terminate(): void {
    this.waits.close();
    this.cancelTimer(this.pollTimer);
  }

  /**
   * Waits on an empty queue; the answer comes back as a `woken` info, keeping the mailbox free.
   * The wait's fetch takes what the queue's free slots allow; under a node-wide cap, or when a
   * fetch counts only once replicas confirm it, the wait only wakes and a poll fetches.
   */
  private startWait(name: string, capped: boolean): void {
    const { keys, config } = this.ctx;
    const queue = this.fetchQueueOf(this.served(name)!);
    const fetch =
      this.confirmsWrites || capped
        ? undefined
        : (connection: Parameters<typeof fetchJobs>[0]) =>
            fetchJobs(connection, keys, config.nodeId, [queue], this.classes);
    this.waits.start(queue, IDLE_WAIT_SECONDS, fetch).then(
      (fetched) => this.send({ type: 'woken', queue: name, fetched }),
      (error: Error) => this.send({ type: 'woken', queue: name, error }),
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

  private pollNow(): void {
    if (!this.pollQueued) {
      this.pollQueued = true;
      this.send({ type: 'poll' });
    }
  }

  /** Arms the poll timer for `at`, unless it is armed for sooner already. */
  private pollAt(at: number): void {
    if (at >= this.pollTimerAt) return;
    this.cancelTimer(this.pollTimer);
    this.pollTimerAt = at;
    this.pollTimer = this.sendAfter({ type: 'poll', due: true }, Math.max(0, at - Date.now()));
  }

  /** Puts every backup list of this node back into its queue. */
  private async rehydrate(): Promise<void> {
    await rehydrateBackups(
      this.ctx,
      this.queues.map((q) => q.name),
      this.name,
      (queue, message) => this.queueFailed(queue, message),
    );
    this.ctx.rehydrated = true;
  }

  private reclaimIfDue(): Promise<void> {
    return this.reclaimer.runIfDue(
      this.queues.map((q) => q.name),
      (queue) => this.waits.has(queue),
    );
  }

  /** Starts a worker per job a fetch took (a poll's or an idle wait's), and records each queue's state. */
  private async dispatchFetched(fetchQueues: FetchQueue[], fetched: Fetched): Promise<void> {
    for (const [i, message] of fetched.errors) this.queueFailed(fetchQueues[i].name, message);
    // A call that failed may have moved jobs before its reply was lost: look for them before the next fetch.
    if (fetched.unsure) for (const q of fetchQueues) this.reclaimer.queue(q.name);
    for (const message of fetched.classErrors)
      this.ctx.logger.error(`a class limit's key is unusable, its jobs wait: ${message}`, { actor: this.name });
    for (let i = 0; i < fetchQueues.length; i++) {
      const { name, backupKey } = fetchQueues[i];
      const spec = this.served(name);
      if (spec) spec.state = fetched.states[i];
      for (const raw of fetched.jobs[i]) {
        // A queue whose concurrency was lowered while an idle wait was out: the rest go back.
        if (this.table.free(name) <= 0) {
          this.reclaimer.queue(name);
          continue;
        }
        await this.dispatcher.dispatch(name, backupKey, raw);
      }
    }
  }

  /** One queue's keys are unusable: say so, and leave it out for a while; the others go on. */
  private queueFailed(queue: string, message: string): void {
    this.ctx.logger.error(`cannot fetch from queue ${queue}: ${message}; trying it again later`, { actor: this.name });
    const spec = this.served(queue);
    if (spec) {
      spec.brokenUntil = Date.now() + this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS;
      spec.state = 'unknown';
    }
  }
}

function toServed(q: ResolvedQueue): ServedQueue {
  return { ...q, state: 'unknown', brokenUntil: 0 };
}
