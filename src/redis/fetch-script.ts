// The fetch script's wrapper (lua/fetch.lua, with lua/_fair.lua for fair queues): the queues of one
// call with their limits, the classes limited across nodes, and what the call answers per queue
// (the jobs moved into this node's backup lists, the queue's state, when a limited one opens).
import type { RateLimit } from '../../config/rate-limit';
import type { RedisClient } from './client';
import type { FairKeys, Keys } from './keys';
import { groupIndexes, runScript } from './scripts';

export interface Fetched {
  /** The raw jobs moved, per queue, oldest first. */
  jobs: string[][];
  /** What the fetch saw in each queue ('unknown' where its keys or its call failed). */
  states: QueueState[];
  /** Per queue whose own rate limit or pause lets no job start: ms until it lets one (0 otherwise). */
  waits: number[];
  /** Queues (by index) whose keys failed, with Redis' message. */
  errors: Array<[index: number, message: string]>;
  /** Messages about limited classes' keys that failed (their jobs stay queued). */
  classErrors: string[];
  /**
   * A call of several (per-queue key layout) failed, its queues are in `errors`: it may have moved
   * jobs whose reply was lost, which the caller must look for in its backup lists.
   */
  unsure?: boolean;
}

export interface FetchQueue {
  name: string;
  queueKey: string;
  backupKey: string;
  runningKey: string;
  /** Its rate limit's starts and its pause (src/redis/lua/_prelude.lua), read by every fetch. */
  rateKey: string;
  /** Free slots on this node. */
  count: number;
  /** Limit across all nodes, if any. */
  globalLimit?: number;
  /** Rate limit across all nodes, if any. */
  rate?: RateLimit;
  /** Jobs to take ahead of the free slots (prefetch), only from a backlog; none by default. */
  ahead?: number;
  /** A fair queue's keys (`fair: true`): its groups take turns, jobs taken ahead too (without group limits). */
  fair?: FairKeys;
  /** A fair queue's limit of running jobs per group across all nodes, if any. */
  groupLimit?: number;
  /** A fair queue's rate limit per group across all nodes, if any. */
  groupRate?: RateLimit;
}

/** A class whose running jobs, or jobs started per window, are limited across all nodes. */
export interface ClassLimit {
  name: string;
  /** Its running hash (with `limit`; unused, and any key of the call's slot, without). */
  runningKey?: string;
  limit?: number;
  rate?: RateLimit;
}

/**
 * A rate limit as the scripts take it (src/redis/lua/_prelude.lua): 'L:P' strict, 'L:P:B' with a
 * burst of B, P in ms; '' for none (the key then holds pauses only). Either way P is `per` and its
 * margin (strictMarginMs): a strict window holds each start that much longer, and a burst's starts
 * are spaced (per + margin) / limit apart, so handlers that begin a few ms after their count still
 * keep what docs/rate-limits.md says (measured at the handlers, a burst's starts came 197-199 ms
 * apart at 5 a second, and a window held one start more than its bound, without it).
 */
export function rateSpec(rate: RateLimit | undefined): string {
  if (!rate) return '';
  const windowMs = rate.per * 1000 + strictMarginMs(rate.per);
  if (typeof rate.burst === 'number') return `${rate.limit}:${windowMs}:${rate.burst}`;
  return `${rate.limit}:${windowMs}`;
}

/**
 * How much longer than `per` a strict window holds each start it counted (and how much a burst's
 * spacing grows, over `limit` starts): the fetch counts a start
 * as it takes the job, and handlers begin a few ms later, some later than others, so a remote API
 * counting its own window of `per` would see two windows' starts overlap by that spread. 5% of
 * `per`, at most 250 ms (docs/rate-limits.md).
 */
export function strictMarginMs(perSeconds: number): number {
  return Math.min(250, Math.round(perSeconds * 50));
}

/**
 * Moves up to each queue's count of jobs into this node's backup lists: one call for all queues
 * (one per queue in the per-queue key layout, sent together); with `cap`, no more than that many
 * in all, taken from the queues in the order given.
 */
export async function fetchJobs(
  client: RedisClient,
  keys: Keys,
  nodeId: string,
  queues: FetchQueue[],
  classes: ClassLimit[] = [],
  cap?: number,
): Promise<Fetched> {
  const groups = groupIndexes(queues, (q) => keys.group(q.name));
  if (groups.size === 1) return fetchCall(client, keys, nodeId, queues, classes, cap);
  const fetched: Fetched = {
    jobs: queues.map(() => []),
    states: queues.map(() => 'unknown'),
    waits: queues.map(() => 0),
    errors: [],
    classErrors: [],
  };
  let failures = 0;
  let firstError: unknown;
  const fetchGroup = async (members: number[], groupCap: number | undefined) => {
    let part: Fetched;
    try {
      part = await fetchCall(
        client,
        keys,
        nodeId,
        members.map((i) => queues[i]),
        classes,
        groupCap,
      );
    } catch (err) {
      // One master away (a failover): its queues wait, the others are served.
      failures++;
      firstError ??= err;
      part = failedFetch(members.length, err);
    }
    part.jobs.forEach((jobs, k) => (fetched.jobs[members[k]] = jobs));
    part.states.forEach((state, k) => (fetched.states[members[k]] = state));
    part.waits.forEach((wait, k) => (fetched.waits[members[k]] = wait));
    for (const [k, message] of part.errors) fetched.errors.push([members[k], message]);
    fetched.classErrors.push(...part.classErrors);
    if (part.unsure) fetched.unsure = true;
    return part.jobs.reduce((n, jobs) => n + jobs.length, 0);
  };
  if (cap === undefined) {
    await Promise.all([...groups.values()].map((members) => fetchGroup(members, undefined)));
  } else {
    // Under a node-wide cap the queues are taken in order, each call with what is left of it.
    let left = cap;
    for (const members of groups.values()) if (left > 0) left -= await fetchGroup(members, left);
  }
  if (failures === groups.size) throw firstError;
  return fetched;
}

/** One fetch call of a group of queues (one per queue in the per-queue key layout): its queues and its answer. */
export interface FetchCall {
  queues: FetchQueue[];
  answer: Promise<Fetched>;
}

/**
 * Sends the fetch of `queues` as one call per group (the calls fetchJobs makes without a cap), so a
 * caller can take each answer as it comes: a call on a cluster slot in migration waits for the move
 * to end (src/redis/connection.ts), and need not hold back the others.
 */
export function fetchCalls(
  client: RedisClient,
  keys: Keys,
  nodeId: string,
  queues: FetchQueue[],
  classes: ClassLimit[] = [],
): FetchCall[] {
  return [...groupIndexes(queues, (q) => keys.group(q.name)).values()].map((members) => {
    const group = members.map((i) => queues[i]);
    return { queues: group, answer: fetchCall(client, keys, nodeId, group, classes) };
  });
}

/** What a fetch call that failed (its master away) says of its `count` queues: none served, the call unsure. */
export function failedFetch(count: number, err: unknown): Fetched {
  const message = (err as Error).message;
  return {
    jobs: Array.from({ length: count }, () => []),
    states: Array.from({ length: count }, () => 'unknown'),
    waits: Array.from({ length: count }, () => 0),
    errors: Array.from({ length: count }, (_, i) => [i, message]),
    classErrors: [],
    unsure: true,
  };
}

/**
 * What a fetch call whose connection was lost says of its `count` queues: none served, no error
 * of theirs (the waiting fetch's connection closed: src/fetch/waiting-fetch.ts), the call unsure.
 */
export function lostFetch(count: number): Fetched {
  return { ...failedFetch(count, new Error('')), errors: [] };
}

/**
 * What a fetch saw in a queue (fetch.lua's letter per queue): took all it asked for (`more`),
 * emptied it, jobs held back by a limit, paused for output; `unknown` where its keys or its call
 * failed (the errors say why). The fetch policy (src/fetch/policy.ts) decides from it.
 */
export type QueueState = 'unknown' | 'more' | 'short' | 'empty' | 'limited' | 'paused';
const STATES: Record<string, QueueState> = { m: 'more', s: 'short', e: 'empty', l: 'limited', p: 'paused' };

async function fetchCall(
  client: RedisClient,
  k: Keys,
  nodeId: string,
  queues: FetchQueue[],
  classes: ClassLimit[],
  cap?: number,
): Promise<Fetched> {
  const first = queues[0].name;
  const keys = [
    k.paused(first),
    k.jobIndex(first),
    ...queues.flatMap((q) => [q.queueKey, q.backupKey, q.runningKey, q.rateKey]),
    // A class's rate key carries the slot of the call's queue (keys.ts); without a running hash its
    // rate key stands in, unread.
    ...classes.flatMap((c) => {
      const rateKey = k.classRate(c.name, first);
      return [c.runningKey ?? rateKey, rateKey];
    }),
    ...queues.flatMap(({ fair: f }) =>
      f ? [f.jobs, f.groups, f.ring, f.seq, f.running, f.rate, f.paused, f.starts, f.parked] : [],
    ),
  ];
  const argv = [
    nodeId,
    queues.length,
    cap ?? '',
    ...queues.flatMap((q) => [q.count, q.name, q.globalLimit ?? '', q.ahead ?? 0, rateSpec(q.rate)]),
    ...classes.flatMap((c) => [c.name, c.limit ?? '', rateSpec(c.rate)]),
    ...queues.flatMap((q) => [q.fair ? String(q.groupLimit ?? '-') : '', rateSpec(q.groupRate)]),
  ];
  const [jobs, errors, states, waits] = (await runScript(client, 'fetch', keys, argv)) as [
    string[][],
    Array<[number, string]>,
    string,
    number[],
  ];
  return {
    jobs,
    states: Array.from(states, (letter) => STATES[letter] ?? 'unknown'),
    waits,
    errors: errors.filter(([i]) => i > 0).map(([i, message]) => [i - 1, message]),
    classErrors: errors.filter(([i]) => i === 0).map(([, message]) => message),
  };
}
