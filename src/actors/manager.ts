// Manager: takes jobs from Redis for the queues this node serves, and starts a runner per job.
//
// Responsibilities:
//  1. On boot, put this node's backup lists (jobs a previous run of this node took and never
//     settled) back into their queues, before the first fetch (src/fetch/own-backups.ts).
//  2. Do what the fetch policy (src/fetch/policy.ts, pure) decides from each queue's state: fetch
//     the queues that may hold work and have free slots (one script call moves up to each one's
//     free count of jobs into this node's backup lists: reliable fetch), wait on the empty ones
//     (src/fetch/idle-waits.ts), and poll the limited and paused ones every `pollTimeout`
//     (src/fetch/poll-schedule.ts). A freed slot of a full queue, a wait's answer and every fetch
//     make it decide again, so no queue waits on another's state.
//  3. Hand what each fetch took to the dispatcher (src/run/dispatcher.ts: one JobRunner per job),
//     in the per-queue key layout each queue's call as it answers: a call still out after a moment
//     (a cluster slot in migration) answers later as a message (src/fetch/late-fetches.ts).
//  4. Leave a queue whose keys fail out for a while, and back off after a Redis error.
//  5. Have the reclaimer (src/fetch/reclaimer.ts) put back backup entries no runner holds.
//  6. Subscribe and unsubscribe queues at run time (src/fetch/served-queues.ts).
//  7. Crash when ioredis ends one of its idle-wait connections for good (src/redis/ended.ts): the
//     restarted manager opens fresh ones and reclaims what the old waits may have moved.
//  8. Start no job while the node's claim on its backup lists may have lapsed (src/node/lease.ts:
//     frozen or cut off from Redis for most of `nodeTimeout`): fetch nothing, keep what it holds
//     fetched ahead, put back what a fetch answered late; go on when a beat renews the claim, and
//     forget what it held fetched ahead when that beat says the node was declared dead meanwhile.
import { Actor } from '../runtime';
import { resolveQueue, type ResolvedQueue } from '../../config/validate';
import { commandTimeoutOf } from '../redis/connection';
import type { RedisClient } from '../redis/client';
import { ClassLimit, failedFetch, Fetched, FetchCall, fetchCalls, fetchJobs } from '../redis/scripts';
import { classLimits } from '../redis/limits';
import type { JobsContext } from '../node/context';
import { ActorNames } from '../node/context';
import { IdleWaits } from '../fetch/idle-waits';
import { FetchAnswer, LateFetches } from '../fetch/late-fetches';
import { reclaimUnworked, rehydrateBackups, requeueOwnBackup } from '../fetch/own-backups';
import { decideFetch } from '../fetch/policy';
import { PollInfo, PollSchedule } from '../fetch/poll-schedule';
import { fetchOrder } from '../fetch/queue-order';
import { Reclaimer } from '../fetch/reclaimer';
import { ServedQueues } from '../fetch/served-queues';
import { Dispatcher } from '../run/dispatcher';
import { handOver, HandOverParts } from '../fetch/hand-over';

/**
 * How long the manager's stop may take: long enough for a poll's Redis calls to time out, since a
 * killed manager would skip the terminate that closes its blocking connections.
 */
export function managerShutdownMs(redis: RedisClient): number {
  return commandTimeoutOf(redis) + 2000;
}

/** After a Redis error the next poll waits this many poll intervals (Exq's backoff). */
export const ERROR_BACKOFF_POLLS = 10;

export type ManagerCall =
  | { type: 'subscribe'; queue: string; concurrency?: number }
  | { type: 'unsubscribe'; queue: string }
  | { type: 'unsubscribe_all' }
  | { type: 'subscriptions' };

type Info =
  | PollInfo
  | { type: 'slot_freed'; queue: string }
  | { type: 'reclaim'; queue: string }
  | { type: 'woken'; queue: string; fetched?: Fetched; error?: Error }
  | ({ type: 'late_fetched' } & FetchAnswer)
  | { type: 'connection_ended'; error: Error }
  | { type: 'lease_regained' };

export class Manager extends Actor<ManagerCall, never, Info> {
  private readonly queues: ServedQueues;
  private readonly waits: IdleWaits;
  private readonly late: LateFetches;
  private readonly schedule: PollSchedule;
  private readonly reclaimer: Reclaimer;
  private readonly classes: ClassLimit[];
  private readonly handOverParts: HandOverParts;

  constructor(private readonly ctx: JobsContext) {
    super({ name: ActorNames.manager, registry: ctx.registry });
    const { config, keys } = ctx;
    this.classes = classLimits(config, keys);
    // Fetching ahead would hold slots of a limit across nodes, or of the node's cap, unused. (Under
    // a queue's rate limit the fetch takes jobs ahead only while the window has room to spare.)
    const prefetchOf = (q: ResolvedQueue) =>
      q.globalConcurrency === undefined && this.classes.length === 0 && config.totalConcurrency === 0
        ? Math.round(config.prefetch * q.concurrency)
        : 0;
    const table = ctx.jobs.running.slots;
    const reservedChanged = (queue: string, count: number) => table.setReserved(queue, count);
    this.queues = new ServedQueues(config.queues, keys, config.nodeId, prefetchOf, reservedChanged);
    const confirmsWrites = typeof config.redis !== 'string' && (config.redis.waitReplicas ?? 0) > 0;
    this.waits = new IdleWaits(
      () => ctx.redis,
      (connection, queue) => fetchJobs(connection, keys, config.nodeId, [queue], this.classes),
      confirmsWrites,
      // An idle-wait connection ioredis ended by itself: crash, the restart starts afresh.
      (error) => this.send({ type: 'connection_ended', error }),
    );
    this.late = new LateFetches((answer) => this.send({ type: 'late_fetched', ...answer }));
    this.schedule = new PollSchedule({
      send: (msg) => this.send(msg),
      sendAfter: (msg, ms) => this.sendAfter(msg, ms),
      cancel: (timer) => this.cancelTimer(timer),
    });
    this.reclaimer = new Reclaimer(ctx, this.name, (queue) => this.queues.reservedOf(queue));
    // A job's runner outlives a restart of the manager that started it: it tells whichever runs now.
    const current = () => ctx.registry.whereis<Manager>(ActorNames.manager);
    const events = {
      slotFreed: (queue: string) => current()?.send({ type: 'slot_freed', queue }),
      reclaim: (queue: string) => current()?.send({ type: 'reclaim', queue }),
    };
    const dispatcher = new Dispatcher(ctx, events, this.name);
    ctx.lease.onRegained = () => current()?.send({ type: 'lease_regained' });
    this.handOverParts = {
      mayStart: () => ctx.lease.holds(),
      queues: this.queues,
      table: ctx.jobs.running.slots,
      reclaimer: this.reclaimer,
      dispatch: (queue, backupKey, raw) => dispatcher.dispatch(queue, backupKey, raw),
      queueFailed: (queue, message) => this.queueFailed(queue, message),
      logger: ctx.logger,
      actor: this.name,
    };
  }

  /** Free and busy slots per queue: the shared work table. */
  private get table() {
    return this.ctx.jobs.running.slots;
  }

  protected override init(): void {
    // A restarted manager serves the configured queues again: the table says so to its readers.
    for (const q of this.table.subscribed()) if (!this.queues.get(q.name)) this.table.remove(q.name);
    for (const q of this.queues.all()) this.table.add(q.name, q.concurrency);
    // A restarted manager cannot know what its predecessor's last fetch moved: reclaim first.
    if (this.ctx.lifecycle.rehydrated) this.reclaimer.everything();
    this.schedule.now();
  }

  protected override async handleCall(msg: ManagerCall): Promise<unknown> {
    switch (msg.type) {
      case 'subscribe':
        await this.subscribe(msg.queue, msg.concurrency);
        return 'ok';
      case 'unsubscribe':
        this.unsubscribe(msg.queue);
        return 'ok';
      case 'unsubscribe_all':
        for (const name of this.queues.names()) this.unsubscribe(name);
        return 'ok';
      case 'subscriptions':
        return this.queues.list();
    }
  }

  protected override async handleInfo(msg: Info): Promise<void> {
    if (msg.type === 'reclaim') this.reclaimer.queue(msg.queue);
    if (msg.type === 'slot_freed') await this.startReserved(msg.queue);
    if (msg.type === 'slot_freed' || msg.type === 'reclaim' || msg.type === 'lease_regained') {
      this.schedule.now();
      return;
    }
    if (msg.type === 'connection_ended') throw msg.error;
    try {
      if (msg.type === 'woken') await this.woken(msg.queue, msg.fetched, msg.error);
      else if (msg.type === 'late_fetched') await this.lateFetched(msg);
      else await this.poll(msg);
    } catch (err) {
      this.ctx.logger.error(`fetch failed, backing off: ${(err as Error).message}`, { actor: this.name });
      this.reclaimer.everything();
      this.schedule.backOff(this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
    }
  }

  protected override async terminate(): Promise<void> {
    this.waits.close();
    this.schedule.stop();
    // What was fetched ahead goes back to the head of its queue now, for any node to run; if Redis
    // does not answer, it waits in the backup list for the next boot or a survivor's recovery.
    const held = this.queues.dropReserves();
    if (held.length > 0) await reclaimUnworked(this.ctx, held, this.name).catch(() => undefined);
  }

  private async subscribe(queue: string, concurrency: number | undefined): Promise<void> {
    const { config, lifecycle } = this.ctx;
    const configured = config.queues.find((q) => q.name === queue);
    const spec = resolveQueue(
      { ...configured, name: queue, concurrency: concurrency ?? configured?.concurrency },
      config.concurrency,
      'queue',
    );
    const wasIdle =
      this.table.busy(spec.name) === 0 && !this.waits.has(spec.name) && this.queues.reservedOf(spec.name).length === 0;
    this.queues.add(spec);
    this.table.add(spec.name, spec.concurrency);
    // Its backup list holds jobs still running here unless the queue is idle on this node.
    if (wasIdle && lifecycle.rehydrated) await requeueOwnBackup(this.ctx, spec.name, this.name);
    this.schedule.now();
  }

  private unsubscribe(queue: string): void {
    if (this.queues.remove(queue) > 0) {
      this.reclaimer.queue(queue); // its jobs fetched ahead go back
      this.schedule.now();
    }
    this.table.remove(queue);
  }

  /** Starts the jobs `queue` holds fetched ahead, while it has free slots: no round trip to Redis. */
  private async startReserved(queue: string): Promise<void> {
    const backupKey = this.ctx.keys.backup(this.ctx.config.nodeId, queue);
    let raw: string | undefined;
    // Declared dead meanwhile: the reaper gave those jobs to the other nodes. A reclaim puts back
    // only what is still in this node's backup list (nothing, unless the reaper has yet to move it).
    if (this.ctx.lease.takeForfeit() || this.ctx.lifecycle.quiet) {
      this.dropReserves();
      return;
    }
    if (!this.ctx.lease.holds()) return; // kept until a beat says whose they are
    while (this.table.free(queue) > 0 && (raw = this.queues.takeReserved(queue)) !== undefined)
      await this.handOverParts.dispatch(queue, backupKey, raw);
  }

  /** Quiet: the jobs fetched ahead go back to their queues (the reclaimer puts them back). */
  private dropReserves(): void {
    for (const queue of this.queues.dropReserves()) this.reclaimer.queue(queue);
  }

  /** One round: what the policy says to fetch is fetched and dispatched, what it says to wait on is waited on. */
  private async poll(msg: PollInfo): Promise<void> {
    const now = Date.now();
    const round = this.schedule.begin(msg, now);
    if (!round) return;
    if (!this.ctx.lease.holds()) {
      // A beat that renews the claim wakes the manager (lease_regained); the timer is a fallback.
      if (this.ctx.lease.takeForfeit()) this.dropReserves();
      this.schedule.at(now + this.ctx.config.heartbeatInterval * 1000);
      return;
    }
    if (!this.ctx.lifecycle.rehydrated) await this.rehydrate();
    if (this.ctx.lifecycle.quiet) this.dropReserves();
    else for (const name of this.queues.names()) await this.startReserved(name);
    await this.reclaimIfDue();
    const { config } = this.ctx;
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    const views = this.queues.all().map((q) => ({
      ...q,
      free: this.table.free(q.name) + this.queues.reserveRoom(q.name),
      waiting: this.waits.has(q.name) || this.late.has(q.name),
    }));
    const node = {
      now,
      quiet: this.ctx.lifecycle.quiet,
      capLeft,
      pollDue: round.pollDue,
      pollTimeout: config.pollTimeout,
      noWaitUntil: this.waits.noWaitUntil,
    };
    const decision = decideFetch(views, node, fetchOrder);
    if (decision.pollIn !== undefined) this.schedule.at(now + decision.pollIn);
    for (const name of decision.wait) this.startWait(name, capLeft !== undefined);
    if (decision.fetch.length === 0) return;
    const fetchQueues = decision.fetch.map((name) =>
      this.queues.fetchQueue(name, this.table.free(name), this.queues.reserveRoom(name)),
    );
    if (this.ctx.keys.perQueue && capLeft === undefined) {
      // One call per queue, each handed over as it answers (under a node-wide cap the queues are
      // taken in order instead, each call with what is left of it).
      await this.handOverEach(fetchCalls(this.ctx.redis, this.ctx.keys, config.nodeId, fetchQueues, this.classes));
    } else {
      const fetched = await fetchJobs(this.ctx.redis, this.ctx.keys, config.nodeId, fetchQueues, this.classes, capLeft);
      await handOver(this.handOverParts, fetchQueues, fetched);
    }
    this.schedule.now(); // the states changed: decide again
  }

  /**
   * The fetch calls of the per-queue key layout: each answer is handed over, those that came within
   * LATE_AFTER_MS now, the others as they come (`late_fetched`), so a queue whose cluster slot is
   * moving holds back no other. When every call failed, the poll fails as one call would.
   */
  private async handOverEach(calls: FetchCall[]): Promise<void> {
    const answers = await this.late.collect(calls);
    const failed = answers.filter((a) => a.error);
    if (failed.length === calls.length && failed[0].error) throw failed[0].error;
    for (const answer of answers) await this.handOverAnswer(answer);
  }

  private async handOverAnswer({ call, fetched, error }: FetchAnswer): Promise<void> {
    await handOver(this.handOverParts, call.queues, fetched ?? failedFetch(call.queues.length, error));
  }

  /** A late fetch call answered: as a wait's answer, unless the queue was left or the node is quiet meanwhile. */
  private async lateFetched(answer: FetchAnswer): Promise<void> {
    this.late.answered(answer.call);
    const left = answer.call.queues.filter((q) => !this.queues.get(q.name) || !this.table.isActive(q.name));
    if (this.ctx.lifecycle.quiet || left.length > 0) {
      // What the call took goes back to its queue (and a failed call's reply may have been lost).
      for (const q of answer.call.queues) this.reclaimer.queue(q.name);
    } else {
      await this.handOverAnswer(answer);
    }
    await this.reclaimIfDue();
    this.schedule.now();
  }

  /**
   * Waits on an empty queue; the answer comes back as a `woken` info, keeping the mailbox free.
   * Under a node-wide cap the wait only wakes and a poll fetches.
   */
  private startWait(name: string, capped: boolean): void {
    this.waits.start(this.queues.fetchQueue(name, this.table.free(name)), capped).then(
      (fetched) => this.send({ type: 'woken', queue: name, fetched }),
      (error: unknown) => this.send({ type: 'woken', queue: name, error: error as Error }),
    );
  }

  /** An idle wait answered: dispatch what its fetch took, then decide again. */
  private async woken(queue: string, fetched: Fetched | undefined, error: Error | undefined): Promise<void> {
    const waited = this.waits.answered(queue);
    const served = this.queues.get(queue) !== undefined;
    if (!served) this.waits.close(queue);
    if (!waited) {
      this.schedule.now();
      return;
    }
    if (error) {
      // Its fetch may have run with its reply lost: the jobs it took wait in the backup list.
      const text = `the idle wait on queue ${queue} failed: ${error.message}; polling meanwhile`;
      this.ctx.logger.warn(text, { actor: this.name });
      this.reclaimer.queue(queue);
      this.waits.failed();
    } else if (!fetched) {
      this.queues.record(queue, 'unknown'); // a wake alone: a job is there, a poll fetches it
    } else if (this.ctx.lifecycle.quiet || !served || !this.table.isActive(queue)) {
      // Quiet, or the queue was left meanwhile: what the fetch took goes back to its queue.
      if (fetched.jobs[0].length > 0) this.reclaimer.queue(queue);
    } else {
      await handOver(this.handOverParts, [waited], fetched);
      // The jobs just dispatched reach their threads on this turn's ticks (ThreadPool): let that
      // hand-off go first, ahead of the next decision's round trips to Redis.
      if (fetched.jobs[0].length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await this.reclaimIfDue();
    this.schedule.now();
  }

  /** Puts every backup list of this node back into its queue. */
  private async rehydrate(): Promise<void> {
    const failed = (queue: string, message: string) => this.queueFailed(queue, message);
    await rehydrateBackups(this.ctx, this.queues.names(), this.name, failed);
    this.ctx.lifecycle.rehydrationDone();
  }

  private reclaimIfDue(): Promise<void> {
    return this.reclaimer.runIfDue(this.queues.names(), (queue) => this.waits.has(queue) || this.late.has(queue));
  }

  /** One queue's keys are unusable: say so, and leave it out for a while; the others go on. */
  private queueFailed(queue: string, message: string): void {
    this.ctx.logger.error(`cannot fetch from queue ${queue}: ${message}; trying it again later`, { actor: this.name });
    this.queues.broken(queue, Date.now() + this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
  }
}
