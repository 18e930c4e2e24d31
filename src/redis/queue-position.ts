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
import { jsonObject } from '../job/json-object';

/** Entries compared from each end of a list at most. */
export const SEARCH_MOST = 100_000;
/** Groups read per HSCAN or LRANGE of a fair queue's counts and ring. */
const PAGE = 1000;

/** Where a job stands in a list; undefined when the list no longer holds it. */
export interface ListPlace {
  /** Jobs nearer the tail (to be taken before it); at least this many when `atLeast`. */
  ahead: number;
  atLeast: boolean;
  length: number;
}

/** LLEN and the index of `raw` found from one end (rank -1: the tail), read atomically. */
async function lengthAndIndex(
  redis: RedisClient,
  key: string,
  raw: string,
  rank: 1 | -1,
): Promise<[number, number | null]> {
  const replies = await redis.multi().llen(key).lpos(key, raw, 'RANK', rank, 'MAXLEN', SEARCH_MOST).exec();
  if (!replies) throw new Error(`the read of ${key} was aborted`);
  for (const [err] of replies) if (err) throw err;
  return [replies[0][1] as number, replies[1][1] as number | null];
}

/**
 * Where the job `raw` stands in the list `key` (a queue, or a fair queue's inbox): LPOS from the
 * tail, then from the head, each with its LLEN in one MULTI.
 */
export async function listPlace(redis: RedisClient, key: string, raw: string): Promise<ListPlace | undefined> {
  for (const rank of [-1, 1] as const) {
    const [length, at] = await lengthAndIndex(redis, key, raw, rank);
    if (at !== null) return { ahead: length - 1 - at, atLeast: false, length };
    // Not within SEARCH_MOST of this end: the whole list when it is that short (gone from it).
    if (length <= SEARCH_MOST) return undefined;
    if (rank === 1) return length <= 2 * SEARCH_MOST ? undefined : { ahead: SEARCH_MOST, atLeast: true, length };
  }
  return undefined;
}

/**
 * The job `jid` as stored in the list `key`, searched a page at a time from the tail and the head
 * in turn, at most SEARCH_MOST entries from each (the job index's own lookup reads a whole list in
 * one script, which holds Redis for a deep job of a long queue). 'deep' when neither end holds it
 * in a list longer than both searches; undefined when the list does not hold it.
 */
export async function searchEnds(
  redis: RedisClient,
  key: string,
  jid: string,
): Promise<{ raw: string } | 'deep' | undefined> {
  const holds = (raw: string) => raw.includes(jid) && jsonObject(raw)?.jid === jid;
  // A page from each end in turn: a job about to run and one just enqueued are both found at once.
  for (let start = 0; start < SEARCH_MOST; start += PAGE) {
    for (const fromTail of [true, false]) {
      const page = fromTail
        ? await redis.lrange(key, -(start + PAGE), -(start + 1))
        : await redis.lrange(key, start, start + PAGE - 1);
      const raw = page.find(holds);
      if (raw !== undefined) return { raw };
      // A short page: this end's search reached the other end, so the whole list was read.
      if (page.length < PAGE) return undefined;
    }
  }
  return (await redis.llen(key)) > 2 * SEARCH_MOST ? 'deep' : undefined;
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
 * time. A paused group is not in the ring, so its jobs are not counted; a group parked at its
 * groupConcurrency (out of the ring until it has room, _fair.lua) counts after it.
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
  const seen = new Set<string>([own]);
  let inRing = false;
  for (let start = 0; ; start += PAGE) {
    const page = await redis.lrange(fair.ring, start, start + PAGE - 1);
    for (const group of page) {
      if (group === own) inRing = true;
      else if (!seen.has(group)) (inRing ? after : before).push(counts.get(group) ?? 0);
      seen.add(group);
    }
    if (page.length < PAGE) break;
  }
  // Groups parked at their groupConcurrency rejoin the ring at its end when they have room.
  for (let start = 0; ; start += PAGE) {
    const page = await redis.lrange(fair.parked, start, start + PAGE - 1);
    for (const group of page) {
      if (!seen.has(group)) after.push(counts.get(group) ?? 0);
      seen.add(group);
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
