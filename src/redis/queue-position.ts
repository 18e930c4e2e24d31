// How many jobs wait ahead of one job in its queue, read cheaply and boundedly (`nexq.position`,
// `nexq show`). A queue is a list that producers LPUSH at the head and fetches take from the tail,
// so the jobs ahead are those between the job and the tail: LPOS from each end, each at most
// SEARCH_MOST entries compared, so a queue of millions never holds Redis for long; a job deeper than
// that in both directions is said to have at least SEARCH_MOST ahead. A fair queue's job waiting in
// its groups (lua/_fair.lua) is ranked in its group by ZLEXCOUNT (members sort by group, then by
// sequence): O(log n). The jobs of the other groups that come first follow from the ring's order
// and their counts, read by LRANGE and HSCAN a page at a time: an operator's look, whose cost grows
// with the number of groups (100,000 groups: 200 short reads), never a long command.
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { groupOfFairMember } from './fair-queue';

/** Entries compared from each end of a list at most. */
export const SEARCH_MOST = 100_000;
/** Groups read per HSCAN or LRANGE of a fair queue's counts and ring. */
const PAGE = 1000;

/** Where a job stands in a list, read in one MULTI; undefined when the list no longer holds it. */
export interface ListPlace {
  /** Jobs nearer the tail (to be taken before it); at least this many when `atLeast`. */
  ahead: number;
  atLeast: boolean;
  length: number;
}

/** Where the job `raw` stands in the list `key` (a queue, or a fair queue's inbox). */
export async function listPlace(redis: RedisClient, key: string, raw: string): Promise<ListPlace | undefined> {
  const replies = await redis
    .multi()
    .llen(key)
    .lpos(key, raw, 'RANK', -1, 'MAXLEN', SEARCH_MOST)
    .lpos(key, raw, 'RANK', 1, 'MAXLEN', SEARCH_MOST)
    .exec();
  if (!replies) return undefined;
  for (const [err] of replies) if (err) throw err;
  const [length, fromTail, fromHead] = replies.map(([, value]) => value as number | null);
  const at = fromTail ?? fromHead;
  if (at !== null) return { ahead: (length as number) - 1 - at, atLeast: false, length: length as number };
  // Neither end's window holds it: deeper than both in a long list, or gone from a short one.
  if ((length as number) <= 2 * SEARCH_MOST) return undefined;
  return { ahead: SEARCH_MOST, atLeast: true, length: length as number };
}

/** A fair queue's state as the rank of one waiting job needs it. */
export interface FairPlace {
  group: string;
  /** Jobs of its group sorted into the groups before it (its rank in its group). */
  aheadInGroup: number;
  /** The jobs waiting in each group served before its group in the ring's turn, and after it. */
  before: number[];
  after: number[];
  /** Jobs of the inbox counted as ahead (not yet sorted into groups, their groups not read). */
  inbox: number;
  /** Its own group is paused (fair-pause.lua). */
  groupPaused: boolean;
}

/**
 * The ring of fair queue `queue` split at group `own` (the groups served before it, and after it;
 * all before when it is not in the ring), with each group's count: LRANGE and HSCAN, a page at a
 * time. A paused group is not in the ring, so its jobs are not counted.
 */
async function ringAround(
  redis: RedisClient,
  keys: Keys,
  queue: string,
  own: string,
): Promise<{ before: number[]; after: number[]; inRing: boolean }> {
  const fair = keys.fair(queue);
  const counts = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(fair.groups, cursor, 'COUNT', PAGE);
    for (let i = 0; i < flat.length; i += 2) counts.set(flat[i], Math.max(0, Number(flat[i + 1]) || 0));
    cursor = next;
  } while (cursor !== '0');
  const before: number[] = [];
  const after: number[] = [];
  let inRing = false;
  for (let start = 0; ; start += PAGE) {
    const page = await redis.lrange(fair.ring, start, start + PAGE - 1);
    for (const group of page) {
      if (group === own) inRing = true;
      else (inRing ? after : before).push(counts.get(group) ?? 0);
    }
    if (page.length < PAGE) break;
  }
  return { before, after, inRing };
}

/**
 * Where the job held by `member` stands in fair queue `queue`'s groups; undefined when the member
 * is gone (the job was fetched or moved meanwhile).
 */
export async function fairMemberPlace(
  redis: RedisClient,
  keys: Keys,
  queue: string,
  member: string,
): Promise<FairPlace | undefined> {
  const fair = keys.fair(queue);
  const group = groupOfFairMember(member);
  const replies = await redis
    .multi()
    .zscore(fair.jobs, member)
    .zlexcount(fair.jobs, `[${group}\0`, `(${member}`)
    .llen(keys.queue(queue))
    .sismember(fair.paused, group)
    .exec();
  if (!replies) return undefined;
  for (const [err] of replies) if (err) throw err;
  const [score, rank, inbox, paused] = replies.map(([, value]) => value);
  if (score === null) return undefined;
  const { before, after } = await ringAround(redis, keys, queue, group);
  return { group, aheadInGroup: rank as number, before, after, inbox: inbox as number, groupPaused: paused === 1 };
}

/**
 * Where a job still in fair queue `queue`'s inbox (`place`, in the list) will stand once sorted into
 * its group `group`: behind the jobs its group has in the groups now (a group new to the ring joins
 * it at its end).
 */
export async function fairInboxPlace(
  redis: RedisClient,
  keys: Keys,
  queue: string,
  group: string,
  place: ListPlace,
): Promise<FairPlace> {
  const fair = keys.fair(queue);
  const [waiting, paused] = await Promise.all([redis.hget(fair.groups, group), redis.sismember(fair.paused, group)]);
  const { before, after } = await ringAround(redis, keys, queue, group);
  return {
    group,
    aheadInGroup: Math.max(0, Number(waiting) || 0),
    before,
    after,
    inbox: place.ahead,
    groupPaused: paused === 1,
  };
}

/**
 * Jobs ahead of a job of rank r in its group under round robin, an estimate: each turn of the ring
 * serves one job of each group, so a group served before the job's own in the turn gives
 * min(its count, r + 1) jobs first, one served after it min(its count, r); its own group gives r,
 * and the inbox's jobs count as ahead. Group limits, rate limits and prefetch move it either way.
 */
export function aheadInFairQueue(place: FairPlace): number {
  const r = place.aheadInGroup;
  let ahead = place.inbox + r;
  for (const n of place.before) ahead += Math.min(n, r + 1);
  for (const n of place.after) ahead += Math.min(n, r);
  return ahead;
}
