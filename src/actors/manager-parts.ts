// The manager's messages and the plain objects it owns (src/actors/manager.ts is its loop): what
// it is asked and told, how long its stop may take, and its parts — the served queues, the idle
// watch, the late fetches, the waiting fetch, the poll timer, the reclaimer, the fetcher and the
// dispatcher — built and wired to its mailbox.
import type { Actor } from '../runtime';
import type { ResolvedQueue } from '../../config/queue-options';
import { commandTimeoutOf } from '../redis/connection';
import type { RedisClient } from '../redis/client';
import { classLimits } from '../redis/limits';
import type { JobsContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import { IdleWatch } from '../fetch/idle-watch';
import { FetchAnswer, LateFetches } from '../fetch/late-fetches';
import { PollInfo, PollSchedule } from '../fetch/poll-schedule';
import { Reclaimer } from '../fetch/reclaimer';
import { ServedQueues } from '../fetch/served-queues';
import { Dispatcher } from './dispatcher';
import { Fetcher } from '../fetch/fetcher';
import type { HandOverParts } from '../fetch/fetcher';
import { WaitingFetch, waitSeconds } from '../fetch/waiting-fetch';

/**
 * How long the manager's stop may take: long enough for a poll's Redis calls to time out, since a
 * killed manager would skip the terminate that closes its wake subscriber and returns what it
 * fetched ahead.
 */
export function managerShutdownMs(redis: RedisClient): number {
  return commandTimeoutOf(redis) + 2000;
}

export type ManagerCall =
  | { type: 'subscribe'; queue: string; concurrency?: number }
  | { type: 'unsubscribe'; queue: string }
  | { type: 'unsubscribe_all' }
  | { type: 'subscriptions' };

export type ManagerInfo =
  | PollInfo
  | { type: 'slot_freed'; queue: string }
  | { type: 'reclaim'; queue: string }
  | { type: 'wake'; queueKey: string | null; heard: number }
  | { type: 'tracking_on' }
  | ({ type: 'late_fetched' } & FetchAnswer)
  | { type: 'connection_ended'; error: Error }
  | { type: 'lease_regained' }
  | { type: 'quiet' }
  | { type: 'wait_ready' };

/** What the manager answers by deciding again at once, and nothing more (a reclaim and quiet first do their part). */
const DECIDE_AGAIN = ['slot_freed', 'reclaim', 'lease_regained', 'tracking_on', 'quiet', 'wait_ready'] as const;
const decideAgain = new Set<string>(DECIDE_AGAIN);

/** True for a message the manager answers by deciding again (DECIDE_AGAIN). */
export function decidesAgain(msg: ManagerInfo): msg is Extract<ManagerInfo, { type: (typeof DECIDE_AGAIN)[number] }> {
  return decideAgain.has(msg.type);
}

/** What the parts may do to the manager that owns them. */
export interface ManagerMailbox {
  name: string;
  send(msg: ManagerInfo): void;
  sendAfter(msg: ManagerInfo, ms: number): NodeJS.Timeout;
  cancelTimer(timer: NodeJS.Timeout | undefined): void;
  /** Takes back the jobs of `queue` waiting on threads for a slot. */
  withdraw(queue: string): void;
  /** One queue's keys are unusable: leave it out for a while. */
  queueFailed(queue: string, message: string): void;
}

export interface ManagerParts {
  queues: ServedQueues;
  idle: IdleWatch;
  late: LateFetches;
  schedule: PollSchedule;
  reclaimer: Reclaimer;
  fetcher: Fetcher;
  waiting: WaitingFetch;
}

/** The manager's parts, each telling `manager` what it needs to hear through its mailbox. */
export function managerParts(ctx: JobsContext, manager: ManagerMailbox): ManagerParts {
  const { config, keys } = ctx;
  const classes = classLimits(config, keys);
  // Fetching ahead would hold slots of a limit across nodes, or of the node's cap, unused; under
  // a rate limit it would start a job counted in one window later, in the next (the fetch counts
  // each start as it takes the job). Nor for a queue of concurrency 1: its jobs wait on whichever
  // thread took them, and a slot goes first to a job waiting on its own thread, so with one slot
  // they could start out of order.
  const prefetchOf = (q: ResolvedQueue) =>
    q.globalConcurrency === undefined &&
    q.rateLimit === undefined &&
    classes.length === 0 &&
    config.totalConcurrency === 0 &&
    q.concurrency > 1
      ? Math.round(config.prefetch * q.concurrency)
      : 0;
  const table = ctx.jobs.running.slots;
  const queues = new ServedQueues(
    config.queues,
    keys,
    config.nodeId,
    prefetchOf,
    (queue) => table.ahead(queue),
    (queue) => table.pace(queue),
  );
  const idle = new IdleWatch(() => ctx.redis, ctx, keys, config.idlePollInterval, {
    wake: (queueKey) => manager.send({ type: 'wake', queueKey, heard: queues.heard() }),
    trackingOn: () => manager.send({ type: 'tracking_on' }),
    // The subscriber ioredis ended by itself: crash, the restart subscribes afresh.
    ended: (error) => manager.send({ type: 'connection_ended', error }),
    warn: (message) => ctx.logger.warn(message, { actor: manager.name }),
    info: (message) => ctx.logger.info(message, { actor: manager.name }),
  });
  const late = new LateFetches((answer) => manager.send({ type: 'late_fetched', ...answer }));
  const schedule = new PollSchedule({
    send: (msg) => manager.send(msg),
    sendAfter: (msg, ms) => manager.sendAfter(msg, ms),
    cancel: (timer) => manager.cancelTimer(timer),
  });
  const reclaimer = new Reclaimer(ctx, manager.name);
  // A job's runner outlives a restart of the manager that started it: it tells whichever runs now.
  const current = () => ctx.registry.whereis<Actor<ManagerCall, never, ManagerInfo>>(ActorNames.manager);
  const events = {
    slotFreed: (queue: string) => current()?.send({ type: 'slot_freed', queue }),
    reclaim: (queue: string) => current()?.send({ type: 'reclaim', queue }),
  };
  const dispatcher = new Dispatcher(ctx, events, manager.name);
  ctx.lease.onRegained = () => current()?.send({ type: 'lease_regained' });
  ctx.lifecycle.onQuiet = () => current()?.send({ type: 'quiet' });
  const handOverParts: HandOverParts = {
    mayStart: () => ctx.lease.holds(),
    queues,
    table: ctx.jobs.running.slots,
    reclaimer,
    dispatch: (queue, backupKey, raw) => dispatcher.dispatch(queue, backupKey, raw),
    withdraw: (queue) => manager.withdraw(queue),
    queueFailed: (queue, message) => manager.queueFailed(queue, message),
    logger: ctx.logger,
    actor: manager.name,
  };
  const fetcher = new Fetcher(ctx, handOverParts, late, classes);
  const waiting = new WaitingFetch(
    () => ctx.redis,
    keys,
    config.nodeId,
    classes,
    late,
    (message) => ctx.logger.warn(message, { actor: manager.name }),
    waitSeconds(config.nodeTimeout, config.heartbeatInterval),
    () => manager.send({ type: 'wait_ready' }),
  );
  return { queues, idle, late, schedule, reclaimer, fetcher, waiting };
}
