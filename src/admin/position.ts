// "Where is my job?" (`nexq.position(jid)`, `nexq show`, `nexq position`): for a job waiting in a
// queue, the jobs ahead of it (in its queue, and in its group in a fair queue) and when it may
// start at the queue's recent rate; for any other job, where it is instead (running on a node,
// scheduled, in retry, dead). The counts are read by src/redis/queue-position.ts, boundedly; the
// rate by src/redis/queue-metrics.ts. An estimate, said so in docs/jobs.md.
import { InvalidJobError } from '../job/job';
import { jsonObject } from '../job/json-object';
import { nowSeconds } from '../job/time';
import { fairGroupOf, findInGroups, rawOfFairMember } from '../redis/fair-queue';
import { indexEntryOf, LocatedJob, locateJob, parseEntry } from '../redis/job-index';
import { recentRate } from '../redis/queue-metrics';
import {
  aheadInFairQueue,
  fairInboxPlace,
  fairMemberPlace,
  FairPlace,
  listPlace,
  ListPlace,
  searchEnds,
  SEARCH_MOST,
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
  /** Undefined for a job of a long list that neither end's search reached. */
  raw?: string;
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
  if (at.raw === undefined) {
    const length = await redis.llen(keys.queue(at.queue));
    return { list: { ahead: SEARCH_MOST, atLeast: true, length } };
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
 * `jid` waiting in `queue` as the index says, found boundedly: at the ends of its list, else in its
 * fair groups (ZSCAN, a page at a time); undefined when it is in neither.
 */
async function waitingAt({ redis, keys }: AdminContext, queue: string, jid: string): Promise<WaitingAt | undefined> {
  const inList = await searchEnds(redis, keys.queue(queue), jid);
  if (inList !== undefined && inList !== 'deep') return { queue, raw: inList.raw };
  const member = await findInGroups(redis, keys, queue, jid);
  if (member !== undefined) return { queue, raw: rawOfFairMember(member), member };
  return inList === 'deep' ? { queue } : undefined;
}

/** Where a job that is not waiting is; undefined for a queued one. */
function elsewhere(jid: string, found: LocatedJob): ElsewherePosition | undefined {
  const { state } = found;
  if (state === 'queued') return undefined;
  if (state === 'running') return { jid, state, queue: found.queue ?? '', node: found.node ?? '' };
  const queue = jsonObject(found.raw)?.queue;
  return { jid, state, at: found.score ?? 0, ...(typeof queue === 'string' ? { queue } : {}) };
}

/**
 * Where the job `jid` stands: the jobs ahead of it and its estimated start when it waits in a
 * queue, else where it is; undefined when nexq does not know it (finished, or never indexed). A
 * waiting job is looked for at the ends of its queue (searchEnds), not by the job index's lookup,
 * which reads the whole list in one script.
 */
export async function jobPosition(ctx: AdminContext, jid: string): Promise<JobPosition | undefined> {
  checkJid(jid);
  const { redis, keys } = ctx;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const known = await indexEntryOf(redis, keys, jid);
    const entry = known && parseEntry(known.entry);
    if (!known || !entry) return undefined;
    if (entry.state !== 'queued') {
      // A set read at one score, or a node's backup list: short reads.
      const found = await locateJob(redis, keys, jid);
      if (!found) return undefined;
      const other = elsewhere(jid, found);
      if (other) return other;
      continue;
    }
    const at = await waitingAt(ctx, entry.queue, jid);
    const position = at && (await positionAt(ctx, jid, at));
    if (position) return position;
    // Not where the index says: it moved meanwhile (look again), or another system took it
    // without telling the index (stale: unknown, as show() says).
    if ((await indexEntryOf(redis, keys, jid))?.entry === known.entry) return undefined;
  }
  throw new Error(`job ${jid} kept moving while its position was read; ask again`);
}
