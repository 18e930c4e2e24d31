// Manager: takes jobs from Redis for the queues this node serves, and starts a runner per job.
//
// Responsibilities:
//  1. On boot, put this node's backup lists (jobs a previous run of this node took and never
//     settled) back into their queues, before the first fetch (src/fetch/own-backups.ts).
//  2. Do what the fetch policy (src/fetch/policy.ts, pure) decides from each queue's state: fetch
//     the queues that may hold work and have free slots (one script call moves up to each one's
//     free count of jobs into this node's backup lists: reliable fetch), fetch an empty queue when a
//     wake signal names it or a write to its tracked key, or the idle check finds jobs in it
//     (src/fetch/idle-watch.ts: one subscriber connection for all queues), and poll
//     the limited and paused ones every `pollTimeout` (src/fetch/poll-schedule.ts). A freed slot of
//     a full queue, a wake and every fetch make it decide again, so no queue waits on another's state.
//  3. Have the fetcher (src/fetch/fetcher.ts) call the fetch script and hand what each call took
//     to the dispatcher (src/actors/dispatcher.ts: one JobRunner per job); in the per-queue key
//     layout each queue's call as it answers: a call still out after a moment (a cluster slot in
//     migration) answers later as a message (src/fetch/late-fetches.ts).
//  4. Serving one plain queue, left idle: send its fetch ahead, held by Redis behind a blocking wait
//     until a job comes (src/fetch/waiting-fetch.ts), and end that wait early (quiet, stop, a queue
//     subscribed or left, a lapsed claim).
//  5. Leave a queue whose keys fail out for a while, and back off after a Redis error.
//  6. Have the reclaimer (src/fetch/reclaimer.ts) put back backup entries no runner holds.
//  7. Subscribe and unsubscribe queues at run time (src/fetch/served-queues.ts).
//  8. Crash when ioredis ends its wake subscriber for good (src/redis/ended.ts): the restarted
//     manager subscribes on a fresh connection.
//  9. Start no job while the node's claim on its backup lists may have lapsed (src/run/lease.ts:
//     frozen or cut off from Redis for most of `nodeTimeout`): fetch nothing, keep what it holds
//     fetched ahead, put back what a fetch answered late; go on when a beat renews the claim, and
//     forget what it held fetched ahead when that beat says the node was declared dead meanwhile.
// Its messages and its parts, built and wired to its mailbox, are in src/actors/manager-parts.ts.
import { Actor } from '../runtime';
import { resolveQueue } from '../../config/queue-options';
import type { JobsContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import type { IdleWatch } from '../fetch/idle-watch';
import type { FetchAnswer, LateFetches } from '../fetch/late-fetches';
import { reclaimUnworked, rehydrateBackups, requeueOwnBackup } from '../fetch/own-backups';
import { decideFetch, decisionViews } from '../fetch/policy';
import type { PollInfo, PollSchedule } from '../fetch/poll-schedule';
import { fetchOrder } from '../fetch/queue-order';
import type { Reclaimer } from '../fetch/reclaimer';
import type { ServedQueues } from '../fetch/served-queues';
import type { Fetcher } from '../fetch/fetcher';
import type { WaitingFetch } from '../fetch/waiting-fetch';
import { decidesAgain, managerParts, type ManagerCall, type ManagerInfo } from './manager-parts';

/** How long a stopping manager waits for the jobs waiting on threads to come back, ms. */
const WITHDRAW_WAIT_MS = 1000;

/** After a Redis error the next poll waits this many poll intervals (Exq's backoff). */
export const ERROR_BACKOFF_POLLS = 10;

export class Manager extends Actor<ManagerCall, never, ManagerInfo> {
  private readonly queues: ServedQueues;
  private readonly idle: IdleWatch;
  private readonly late: LateFetches;
  private readonly schedule: PollSchedule;
  private readonly reclaimer: Reclaimer;
  private readonly fetcher: Fetcher;
  private readonly waiting: WaitingFetch;
  private withdrawnForQuiet = false;

  constructor(private readonly ctx: JobsContext) {
    super({ name: ActorNames.manager, registry: ctx.registry });
    const parts = managerParts(ctx, {
      name: this.name,
      send: (msg) => this.send(msg),
      sendAfter: (msg, ms) => this.sendAfter(msg, ms),
      cancelTimer: (timer) => this.cancelTimer(timer),
      withdraw: (queue) => this.withdraw(queue),
      queueFailed: (queue, message) => this.queueFailed(queue, message),
    });
    this.queues = parts.queues;
    this.idle = parts.idle;
    this.late = parts.late;
    this.schedule = parts.schedule;
    this.reclaimer = parts.reclaimer;
    this.fetcher = parts.fetcher;
    this.waiting = parts.waiting;
  }

  /** Free and busy slots per queue: the shared work table. */
  private get table() {
    return this.ctx.jobs.running.slots;
  }

  protected override init(): void {
    // A restarted manager serves the configured queues again: the table says so to its readers.
    for (const q of this.table.subscribed()) if (!this.queues.get(q.name)) this.table.remove(q.name);
    for (const q of this.queues.all()) this.table.add(q.name, q.concurrency);
    this.idle.open();
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

  protected override async handleInfo(msg: ManagerInfo): Promise<void> {
    if (msg.type === 'reclaim') this.reclaimer.queue(msg.queue);
    if (msg.type === 'quiet') this.endWait(true);
    if (decidesAgain(msg)) {
      this.schedule.now();
      return;
    }
    if (msg.type === 'connection_ended') throw msg.error;
    if (msg.type === 'wake') {
      this.woken(msg.queueKey, msg.heard);
      return;
    }
    try {
      if (msg.type === 'late_fetched') await this.lateFetched(msg);
      else await this.poll(msg);
    } catch (err) {
      this.ctx.logger.error(`fetch failed, backing off: ${(err as Error).message}`, { actor: this.name });
      this.reclaimer.everything();
      this.schedule.backOff(this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
    }
  }

  protected override async terminate(): Promise<void> {
    this.idle.close();
    this.schedule.stop();
    // The waiting fetch ends, its connection shut even if this stop is cut short (a kill).
    const shut = setTimeout(() => this.waiting.shut(), this.waiting.longestMs);
    await this.waiting.end(this.waiting.longestMs);
    clearTimeout(shut);
    this.waiting.shut();
    // What was handed over ahead comes back from the threads, and goes back to the head of its
    // queue now, for any node to run; if Redis does not answer, it waits in the backup list for
    // the next boot or a survivor's recovery.
    const { running } = this.ctx.jobs;
    const held = running.waitingQueues();
    if (held.length > 0) this.withdraw();
    for (let waited = 0; running.waitingQueues().length > 0 && waited < WITHDRAW_WAIT_MS; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // What a fetch answered to no one now (the waiting fetch's, a late one's) goes back too.
    for (const queue of this.late.queues()) if (!held.includes(queue)) held.push(queue);
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
    // Not busy is not enough: a job whose handler ended gives its slot back before its ack lands.
    const wasIdle = !this.ctx.jobs.running.holdsAny(spec.name) && !this.late.has(spec.name);
    this.endWait(true); // a node of two queues waits on signals
    this.queues.add(spec);
    this.table.add(spec.name, spec.concurrency);
    // Its backup list holds jobs still running here unless the queue is idle on this node.
    if (wasIdle && lifecycle.rehydrated) await requeueOwnBackup(this.ctx, spec.name, this.name);
    this.schedule.now();
  }

  private unsubscribe(queue: string): void {
    if (!this.queues.get(queue)) return;
    this.endWait(this.queues.all().length !== 2); // its answer puts back what it took from a queue left
    this.withdraw(queue); // its jobs waiting on threads go back
    this.queues.remove(queue);
    this.idle.forget(queue);
    this.table.remove(queue);
    this.schedule.now();
  }

  /**
   * Takes back the jobs waiting on threads for a slot, of `queue` or of every queue: each runner
   * puts its job back at the head of its queue. Quiet, stop, unsubscribe, a pause, a lost claim.
   */
  private withdraw(queue?: string): void {
    const { running, pool } = this.ctx.jobs;
    if (queue === undefined) {
      pool.withdraw();
      return;
    }
    const row = running.slots.row(queue);
    if (row !== undefined) pool.withdraw([row]);
  }

  /** One round: what the policy says to fetch is fetched and dispatched, what it says to wait on is waited on. */
  private async poll(msg: PollInfo): Promise<void> {
    const now = Date.now();
    const round = this.schedule.begin(msg, now);
    if (!round) return;
    // Declared dead meanwhile: the reaper gave this node's backup lists to the other nodes, and
    // the jobs waiting on its threads are theirs now.
    if (this.ctx.lease.takeForfeit()) this.withdraw();
    if (!this.ctx.lease.holds()) {
      this.endWait(); // what it took goes back
      // A beat that renews the claim wakes the manager (lease_regained); the timer is a fallback.
      this.schedule.at(now + this.ctx.config.heartbeatInterval * 1000);
      return;
    }
    if (!this.ctx.lifecycle.rehydrated) await this.rehydrate();
    if (this.ctx.lifecycle.quiet && !this.withdrawnForQuiet) {
      this.withdrawnForQuiet = true;
      this.withdraw();
      this.endWait(true);
    }
    await this.reclaimIfDue();
    const { config, lifecycle, lease } = this.ctx;
    // A node of one plain queue, idle or maybe idle, waits for it with its fetch sent ahead.
    const self = { now, quiet: lifecycle.quiet, capped: config.totalConcurrency > 0, leftMs: lease.leftMs() };
    if (this.waiting.sendIfIdle(this.queues, this.table, self)) return;
    const capLeft = config.totalConcurrency > 0 ? config.totalConcurrency - this.table.totalBusy() : undefined;
    const idleCheckAt = this.idle.dueAt;
    const { views, idleLeftOut } = decisionViews(this.queues.all(), now, {
      free: (queue) => this.table.free(queue) + this.queues.reserveRoom(queue),
      waiting: (queue) => this.late.has(queue),
      unarmed: (queue) => this.idle.unarmed(queue),
      idleCheckAt,
    });
    const node = {
      now,
      quiet: this.ctx.lifecycle.quiet,
      capLeft,
      pollDue: round.pollDue,
      pollTimeout: config.pollTimeout,
      idleCheckAt,
    };
    const decision = decideFetch(views, node, fetchOrder);
    this.idle.decided(now);
    if (decision.pollIn !== undefined) this.schedule.at(now + decision.pollIn);
    if (idleLeftOut && !node.quiet) this.schedule.at(this.idle.dueAt); // as moved by this decision
    if (decision.check.length > 0) {
      this.schedule.at(this.idle.dueAt); // and the next check, an interval later
      await this.checkIdle(decision.check);
    }
    if (decision.fetch.length === 0) return;
    this.queues.sending(decision.fetch);
    const fetchQueues = decision.fetch.map((name) =>
      this.queues.fetchQueue(name, this.table.free(name), this.queues.reserveRoom(name)),
    );
    await this.fetcher.fetch(fetchQueues, capLeft);
    this.schedule.now(); // the states changed: decide again
  }

  /** Ends the waiting fetch (it answers as a late fetch); `close`: its connection too, the node won't wait soon. */
  private endWait(close = false): void {
    this.waiting.end(0, close).catch(() => undefined);
  }

  /** A late fetch call answered: handed over, or its jobs back if its queues were left meanwhile. */
  private async lateFetched(answer: FetchAnswer): Promise<void> {
    await this.fetcher.lateFetched(answer, (q) => this.queues.get(q) !== undefined && this.table.isActive(q));
    await this.reclaimIfDue();
    this.schedule.now();
  }

  /** A queue key woke (a wake signal, or a write to a tracked key; null: every key), `heard` as it came. */
  private woken(queueKey: string | null, heard: number): void {
    if (this.queues.woken(queueKey, heard, (queue) => this.late.has(queue))) this.schedule.now();
  }

  /** The idle check: the empty queues found holding jobs are fetched on the next decision. */
  private async checkIdle(names: string[]): Promise<void> {
    const found = await this.idle.holdingJobs(names);
    for (const name of found) this.queues.record(name, 'unknown');
    if (found.length > 0) this.schedule.now();
  }

  /** Puts every backup list of this node back into its queue. */
  private async rehydrate(): Promise<void> {
    const failed = (queue: string, message: string) => this.queueFailed(queue, message);
    await rehydrateBackups(this.ctx, this.queues.names(), this.name, failed);
    this.ctx.lifecycle.rehydrationDone();
  }

  private reclaimIfDue(): Promise<void> {
    return this.reclaimer.runIfDue(this.queues.names(), (queue) => this.late.has(queue));
  }

  /** One queue's keys are unusable: say so, and leave it out for a while; the others go on. */
  private queueFailed(queue: string, message: string): void {
    this.ctx.logger.error(`cannot fetch from queue ${queue}: ${message}; trying it again later`, { actor: this.name });
    this.queues.broken(queue, Date.now() + this.ctx.config.pollTimeout * ERROR_BACKOFF_POLLS);
  }
}
