// "Where is my job?" (`nexq.position(jid)`, `nexq show`, `nexq position`): for a job waiting in a
// queue, the jobs ahead of it (in its queue, and in its group in a fair queue) and when it may
// start at the queue's recent rate; for any other job, where it is instead (running on a node,
// scheduled, in retry, dead). The counts are read by src/redis/queue-position.ts, boundedly; the
// rate by src/redis/queue-metrics.ts. An estimate, said so in docs/jobs.md.
import { InvalidJobError } from '../job/job';
import { jsonObject } from '../job/json-object';
import { nowSeconds } from '../job/time';
import { fairGroupOf } from '../redis/fair-queue';
import { locateJob } from '../redis/job-index';
import { recentRate } from '../redis/queue-metrics';
import {
  aheadInFairQueue,
  fairInboxPlace,
  fairMemberPlace,
  FairPlace,
  listPlace,
  ListPlace,
} from '../redis/queue-position';
import type { AdminContext } from './context';

/** A job waiting in its queue, and what stands before it. */
export interface QueuedPosition {
  jid: string;
  state: 'queued';
  queue: string;
  /** Its group, in a fair queue ('' the default group). */
  group?: string;
  /**
   * Jobs that should start before it in its queue: exact in a plain queue (at least this many when
   * `atLeast`), an estimate under a fair queue's round robin (`estimate`).
   */
  aheadInQueue: number;
  /** Jobs of its group before it, in a fair queue (those not yet sorted out of the inbox not counted). */
  aheadInGroup?: number;
  /** aheadInQueue is a lower bound: the job is deeper than the part of a long queue searched. */
  atLeast?: true;
  /** aheadInQueue is an estimate (a fair queue). */
  estimate?: true;
  /** The queue is paused for output (`nexq pause`): nothing starts until it is resumed. */
  paused?: true;
  /** Its group is paused (`nexq groups pause`): it does not start until the group is resumed. */
  groupPaused?: true;
  /** Jobs of its queue processed per second over the last minutes; absent when none ran (unknown). */
  ratePerSecond?: number;
  /** In how many ms it may start at that rate; absent when the rate is unknown or it is paused. */
  estimatedStartMs?: number;
  /** When it may start, epoch seconds (as `score`); absent likewise. */
  estimatedStartAt?: number;
}

/** A job that is not waiting in a queue: where it is instead. */
export type ElsewherePosition =
  | { jid: string; state: 'running'; queue: string; node: string }
  /** `at`: when it runs (schedule), is retried (retry) or died (dead), epoch seconds. */
  | { jid: string; state: 'schedule' | 'retry' | 'dead'; at: number; queue?: string };

export type JobPosition = QueuedPosition | ElsewherePosition;

/** A job found waiting: its queue, the job as stored, and its member when in a fair queue's groups. */
export interface WaitingAt {
  queue: string;
  raw: string;
  member?: string;
}

const ATTEMPTS = 5;

/** Throws InvalidJobError unless `jid` can name a job. */
export function checkJid(jid: unknown): asserts jid is string {
  if (typeof jid !== 'string' || jid === '') throw new InvalidJobError('jid must be a non-empty string');
}

/** Whether `queue` is served fair: by this node's options, or by its groups' keys in Redis. */
async function isFair({ redis, keys, config }: AdminContext, queue: string): Promise<boolean> {
  if (config.queues.some((q) => q.name === queue && q.fair)) return true;
  const fair = keys.fair(queue);
  return (await redis.exists(fair.jobs, fair.groups)) > 0;
}

/** The counts of a job in `at`, or undefined when it left that place meanwhile. */
async function placeOf(ctx: AdminContext, at: WaitingAt): Promise<{ list?: ListPlace; fair?: FairPlace } | undefined> {
  const { redis, keys } = ctx;
  if (at.member !== undefined) {
    const fair = await fairMemberPlace(redis, keys, at.queue, at.member);
    return fair && { fair };
  }
  const list = await listPlace(redis, keys.queue(at.queue), at.raw);
  if (!list) return undefined;
  if (!(await isFair(ctx, at.queue))) return { list };
  const group = fairGroupOf(jsonObject(at.raw)?.group);
  return { list, fair: await fairInboxPlace(redis, keys, at.queue, group, list) };
}

async function queuePaused({ redis, keys }: AdminContext, queue: string): Promise<boolean> {
  const mode = await redis.hget(keys.paused(queue), queue);
  return mode === 'out' || mode === 'all';
}

/**
 * The position of the job `jid` found waiting at `at` (`nexq show` finds it by scanning too);
 * undefined when it is no longer there.
 */
export async function positionAt(ctx: AdminContext, jid: string, at: WaitingAt): Promise<QueuedPosition | undefined> {
  const place = await placeOf(ctx, at);
  if (!place) return undefined;
  const { queue } = at;
  const position: QueuedPosition = { jid, state: 'queued', queue, aheadInQueue: 0 };
  if (place.fair) {
    position.group = place.fair.group;
    position.aheadInQueue = aheadInFairQueue(place.fair);
    position.aheadInGroup = place.fair.aheadInGroup;
    position.estimate = true;
    if (place.fair.groupPaused) position.groupPaused = true;
  } else if (place.list) {
    position.aheadInQueue = place.list.ahead;
    if (place.list.atLeast) position.atLeast = true;
  }
  if (await queuePaused(ctx, queue)) position.paused = true;
  const now = ctx.clock?.now() ?? nowSeconds();
  const rate = await recentRate(ctx.redis, ctx.keys, queue, now);
  if (!(rate > 0) || !Number.isFinite(rate)) return position;
  position.ratePerSecond = Number(rate.toPrecision(3));
  if (position.paused || position.groupPaused) return position;
  const ms = Math.round((position.aheadInQueue / rate) * 1000);
  position.estimatedStartMs = ms;
  position.estimatedStartAt = Math.round((now + ms / 1000) * 1000) / 1000;
  return position;
}

/**
 * Where the job `jid` stands: the jobs ahead of it and its estimated start when it waits in a
 * queue, else where it is; undefined when nexq does not know it (finished, or never indexed).
 */
export async function jobPosition(ctx: AdminContext, jid: string): Promise<JobPosition | undefined> {
  checkJid(jid);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = await locateJob(ctx.redis, ctx.keys, jid);
    if (!found) return undefined;
    if (found.state === 'running') return { jid, state: 'running', queue: found.queue ?? '', node: found.node ?? '' };
    if (found.state !== 'queued') {
      const queue = jsonObject(found.raw)?.queue;
      return {
        jid,
        state: found.state,
        at: found.score ?? 0,
        ...(typeof queue === 'string' ? { queue } : {}),
      };
    }
    const at = { queue: found.queue ?? '', raw: found.raw, member: found.member };
    const position = await positionAt(ctx, jid, at);
    if (position) return position;
    // It moved between the lookup and the count (fetched, most likely): look again.
  }
  throw new Error(`job ${jid} kept moving while its position was read; ask again`);
}
