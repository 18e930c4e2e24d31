// Loads the Lua scripts of ./lua once per client and gives each a typed wrapper.
// Every key a script touches is passed in KEYS, so a cluster mode can route it.
import { CrossSlotError, fromReply } from './errors';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keySlot, RedisClient } from './client';
import type { FairKeys, Keys } from './keys';
import type { RateLimit } from '../../config/rate-limit';

export { CrossSlotError } from './errors';

const SCRIPTS = [
  'fetch',
  'fail',
  'requeue-backup',
  'enqueue-due',
  'bury-due',
  'recover-node',
  'recover-exq-node',
  'requeue-job',
  'enqueue',
  'ack',
  'release',
  'enqueue-periodic',
  'find-in-list',
  'delete-job',
  'clear-jobs',
  'queue-page',
  'ack-batch',
  'lease-due',
  'beat',
  'dead-nodes',
  'redis-time',
  'throttle',
  'batch-add',
  'batch-settle',
  'batch-deliver',
  'sweep-index',
  'claim-node',
  'fair-pause',
] as const;
type ScriptName = (typeof SCRIPTS)[number];

function commandName(script: ScriptName): string {
  return `nexq_${script.replace(/-/g, '_')}`;
}

/** The scripts that read fair queues' keys: lua/_fair.lua is prepended to them after the prelude. */
const FAIR_SCRIPTS: ReadonlySet<ScriptName> = new Set(['fetch']);

const sources = new Map<ScriptName, string>();
function source(script: ScriptName): string {
  let lua = sources.get(script);
  if (!lua) {
    const read = (name: string) => readFileSync(path.join(__dirname, 'lua', `${name}.lua`), 'utf8');
    lua = `${read('_prelude')}\n${FAIR_SCRIPTS.has(script) ? `${read('_fair')}\n` : ''}${read(script)}`;
    sources.set(script, lua);
  }
  return lua;
}

/** A client (of one server or of a cluster) with nexq's scripts defined. */
export type Scripted<C extends RedisClient> = C & { readonly nexqScripts: true };
export type ScriptedRedis = Scripted<RedisClient>;

export function defineScripts<C extends RedisClient>(client: C): Scripted<C> {
  for (const script of SCRIPTS) client.defineCommand(commandName(script), { lua: source(script) });
  return Object.assign(client, { nexqScripts: true as const });
}

const CHECK_SLOTS = Symbol('nexq.checkSlots');

/**
 * Makes every script call on `client` check first that its keys share one cluster slot, as a
 * cluster requires: on for the per-queue key layout, so a key built for the wrong queue fails with
 * a clear error on a single server too, not only as CROSSSLOT on a cluster.
 */
export function checkSlotsOn(client: RedisClient): void {
  Object.defineProperty(client, CHECK_SLOTS, { value: true, configurable: true });
}

/** Defines nexq's scripts on `copy` (a duplicate of `source`), with `source`'s slot check if it has one. */
export function defineScriptsLike<C extends RedisClient>(source: RedisClient, copy: C): Scripted<C> {
  if ((source as unknown as Record<symbol, boolean>)[CHECK_SLOTS]) checkSlotsOn(copy);
  return defineScripts(copy);
}

/** Each script's command name on a client, worked out once rather than per call. */
const COMMAND_NAMES = Object.fromEntries(SCRIPTS.map((script) => [script, commandName(script)])) as Record<
  ScriptName,
  string
>;

type Runner = (numberOfKeys: number, ...args: Array<string | number>) => Promise<unknown>;
export function runScript(
  client: RedisClient,
  script: ScriptName,
  keys: string[],
  argv: Array<string | number>,
): Promise<unknown> {
  if ((client as unknown as Record<symbol, boolean>)[CHECK_SLOTS] && keys.length > 1) {
    const slot = keySlot(keys[0]);
    const other = keys.find((key) => keySlot(key) !== slot);
    if (other !== undefined)
      return Promise.reject(
        new CrossSlotError(
          `${script}: keys ${JSON.stringify(keys[0])} and ${JSON.stringify(other)} are in different cluster slots`,
        ),
      );
  }
  const runner = (client as unknown as Record<string, Runner>)[COMMAND_NAMES[script]];
  // One array of the arguments, applied, rather than two spreads into a call.
  const args: Array<string | number> = [keys.length];
  for (const key of keys) args.push(key);
  for (const arg of argv) args.push(arg);
  // Every refusal of every script becomes its NexqError here, in one place (./errors.ts).
  return (runner as (...args: Array<string | number>) => Promise<unknown>)
    .apply(client, args)
    .catch((err: unknown) => Promise.reject(fromReply(err, `nexq's ${script} script`)));
}

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
 * burst of B, P in ms; '' for none (the key then holds pauses only).
 */
export function rateSpec(rate: RateLimit | undefined): string {
  if (!rate) return '';
  if (typeof rate.burst === 'number') return `${rate.limit}:${rate.per * 1000}:${rate.burst}`;
  return `${rate.limit}:${rate.per * 1000 + strictMarginMs(rate.per)}`;
}

/**
 * How much longer than `per` a strict window holds each start it counted: the fetch counts a start
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
    ...queues.flatMap(({ fair: f }) => (f ? [f.jobs, f.groups, f.ring, f.seq, f.running, f.rate, f.paused] : [])),
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

/** The positions of `items` per group, groups in the order they first appear. */
export function groupIndexes<T>(items: readonly T[], groupOf: (item: T) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const group = groupOf(item);
    const members = groups.get(group);
    if (members) members.push(i);
    else groups.set(group, [i]);
  });
  return groups;
}

/** What a fetched job holds until it is settled, besides its backup entry. */
export interface Held {
  /** Running hashes it holds a slot in (its queue's, its class's), and this node's id. */
  slots: string[];
  nodeId: string;
  /** Its unique lock and jid, when the lock is to be released with this step. */
  lock?: { lockKey: string; jid: string };
}

export interface PlainAck {
  queue: string;
  backup: string;
  raw: string;
  jid: string;
}

/**
 * Acks many plain jobs in one call (one per queue in the per-queue key layout, sent together); per
 * job 1 (acked), 0 (gone) or the message of a broken backup key.
 */
export async function ackBatch(client: RedisClient, keys: Keys, acks: PlainAck[]): Promise<Array<number | string>> {
  const results: Array<number | string> = [];
  const groups = groupIndexes(acks, (a) => keys.group(a.queue));
  const call = (part: PlainAck[]) =>
    runScript(
      client,
      'ack-batch',
      [keys.jobIndex(part[0].queue), ...part.map((a) => a.backup), ...part.map((a) => keys.processed(a.queue))],
      part.flatMap((a) => [a.raw, a.jid]),
    ) as Promise<Array<number | string>>;
  if (groups.size === 1) return call(acks);
  await Promise.all(
    [...groups.values()].map(async (members) => {
      // A call that fails (its master away) fails its own acks only: their job runners try them again.
      const acked = await call(members.map((i) => acks[i])).catch((err: unknown) =>
        members.map(() => fromReply(err).message),
      );
      acked.forEach((result, k) => (results[members[k]] = result));
    }),
  );
  return results;
}

/**
 * Pauses (`pause` true) or resumes one group of fair queue `queue` on every node (fair-pause.lua);
 * false when it already was so.
 */
export async function pauseFairGroup(
  client: RedisClient,
  keys: Keys,
  queue: string,
  group: string,
  pause: boolean,
): Promise<boolean> {
  const fair = keys.fair(queue);
  const keysOf = [fair.ring, fair.paused, fair.groups];
  return (await runScript(client, 'fair-pause', keysOf, [group, pause ? 'pause' : 'resume'])) === 1;
}

/**
 * Pauses starting jobs of the queue or class whose rate key is `rateKey` on every node for `ms`
 * (throttle.lua); the ms until the pause ends.
 */
export async function throttle(client: RedisClient, rateKey: string, ms: number): Promise<number> {
  return (await runScript(client, 'throttle', [rateKey], [Math.ceil(ms)])) as number;
}

/**
 * Acks a job: LREM, unindex and release in one step. False when it was gone. `keepIndex`: it runs on.
 * `processed`: its queue's processed counter, when the job counts as processed (keys.processed).
 */
export async function ackJob(
  client: RedisClient,
  jobIndex: string,
  backup: string,
  raw: string,
  jid: string,
  held: Held,
  keepIndex = false,
  processed?: string,
): Promise<boolean> {
  const keys = [backup, jobIndex, held.lock?.lockKey ?? backup, processed ?? backup, ...held.slots];
  return (
    (await runScript(client, 'ack', keys, [raw, jid, held.lock?.jid ?? '', held.nodeId, keepIndex ? 'keep' : ''])) === 1
  );
}

export interface Requeue {
  backup: string;
  queueKey: string;
  queue: string;
  raw: string;
  /** The job as it goes back (nacks raised); `raw` when absent. */
  rewritten?: string;
  /** 'back': behind the waiting jobs (nack); 'front': next in line (a job no worker ran). */
  end: 'back' | 'front';
  jid: string;
  /** Its queue's processed counter, when the job counts as processed (a nack). */
  processed?: string;
}

/** Moves one job from a backup list back into its queue, giving back its slots. */
export async function requeueJob(
  client: RedisClient,
  jobIndex: string,
  r: Requeue,
  held: Pick<Held, 'slots' | 'nodeId'>,
): Promise<boolean> {
  const keys = [r.backup, r.queueKey, jobIndex, r.processed ?? r.backup, ...held.slots];
  return (
    (await runScript(client, 'requeue-job', keys, [
      r.raw,
      r.rewritten ?? r.raw,
      r.end,
      held.nodeId,
      r.jid,
      r.queue,
    ])) === 1
  );
}

/**
 * Lets go of a unique lock if `lock.jid` still holds it, forgets `doneJid` in the index, and gives
 * back the running slots in `held` (an at-most-once job's, kept while it ran). `processed`: the
 * queue's processed counter, when the job done (taken, at most once) counts as processed.
 */
export async function releaseJob(
  client: RedisClient,
  jobIndex: string,
  lock: { lockKey: string; jid: string } | undefined,
  doneJid = '',
  held: Pick<Held, 'slots' | 'nodeId'> = { slots: [], nodeId: '' },
  processed?: string,
): Promise<boolean> {
  const keys = [lock?.lockKey ?? jobIndex, jobIndex, processed ?? jobIndex, ...held.slots];
  return (
    (await runScript(client, 'release', keys, [lock?.jid ?? '', doneJid, held.slots.length > 0 ? held.nodeId : ''])) ===
    1
  );
}

export interface FailEntry {
  backup: string;
  target: string;
  /** 'retry' or 'dead': where the index says the job is. */
  place: 'retry' | 'dead';
  raw: string;
  rewritten: string;
  /** The jid of the rewritten job. */
  jid: string;
  score: number;
  /** Dead set only: entries scored below this are dropped. */
  trimBelow?: number;
  /** Dead set only: keep at most this many entries. */
  maxEntries?: number;
  /** The slots the job holds, released with it. */
  held?: Pick<Held, 'slots' | 'nodeId'>;
  /** The job left the backup list already (at-most-once): file it regardless. */
  taken?: boolean;
  /** Its queue's processed counter, when the job counts as processed (it failed). */
  processed?: string;
}

/** Files a failed job in `target`; false when it was no longer in its backup list. */
export async function failJob(client: RedisClient, jobIndex: string, e: FailEntry): Promise<boolean> {
  const keys = [e.backup, e.target, jobIndex, e.processed ?? e.backup, ...(e.held?.slots ?? [])];
  const argv = [
    e.raw,
    e.rewritten,
    formatScore(e.score),
    e.trimBelow === undefined ? '' : formatScore(e.trimBelow),
    e.maxEntries ?? '',
    e.held?.nodeId ?? '',
    e.jid,
    e.place,
    e.taken ? 'taken' : '',
  ];
  return (await runScript(client, 'fail', keys, argv)) === 1;
}

/**
 * The queue set as a script's last key, or nothing in the per-queue key layout, where it lives in
 * another slot: there the queues are added to it here, before the script runs.
 */
export async function queueSet(client: RedisClient, keys: Keys, queues: string[]): Promise<string[]> {
  if (!keys.perQueue) return [keys.queues];
  // A name the layout cannot hold is refused before it joins the set: every reader of the set
  // builds its keys.
  for (const queue of queues) keys.queue(queue);
  await client.sadd(keys.queues, ...queues);
  return [];
}

/** Scores as Sidekiq writes them: epoch seconds with microseconds. */
export function formatScore(seconds: number): string {
  return seconds.toFixed(6);
}
