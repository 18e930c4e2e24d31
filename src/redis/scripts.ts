// Loads the Lua scripts of ./lua once per client and gives each a typed wrapper.
// Every key a script touches is passed in KEYS, so a cluster mode can route it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from './client';
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';

const SCRIPTS = ['fetch', 'fail', 'requeue-backup', 'enqueue-due', 'bury-due', 'recover-node', 'requeue-job', 'enqueue', 'ack', 'release', 'enqueue-periodic', 'find-in-list', 'delete-job', 'clear-set', 'ack-batch'] as const;
type ScriptName = (typeof SCRIPTS)[number];

function commandName(script: ScriptName): string {
  return `nexq_${script.replace(/-/g, '_')}`;
}

const sources = new Map<ScriptName, string>();
function source(script: ScriptName): string {
  let lua = sources.get(script);
  if (!lua) {
    const read = (name: string) => readFileSync(path.join(__dirname, 'lua', `${name}.lua`), 'utf8');
    lua = `${read('_prelude')}\n${read(script)}`;
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

type Runner = (numberOfKeys: number, ...args: Array<string | number>) => Promise<unknown>;
function run(client: RedisClient, script: ScriptName, keys: string[], argv: Array<string | number>): Promise<unknown> {
  const runner = (client as unknown as Record<string, Runner>)[commandName(script)];
  return runner.call(client, keys.length, ...keys, ...argv);
}

export interface Fetched {
  /** The raw jobs moved, per queue, oldest first. */
  jobs: string[][];
  /** Queues (by index) whose keys failed, with Redis' message. */
  errors: Array<[index: number, message: string]>;
  /** Messages about limited classes' keys that failed (their jobs stay queued). */
  classErrors: string[];
}

export interface FetchQueue {
  name: string;
  queueKey: string;
  backupKey: string;
  runningKey: string;
  /** Free slots on this node. */
  count: number;
  /** Limit across all nodes, if any. */
  globalLimit?: number;
}

/** A class whose running jobs are limited across all nodes. */
export interface ClassLimit {
  name: string;
  runningKey: string;
  limit: number;
}

/** Where every fetch reads and writes besides the queues: pausing, the job index. */
export interface FetchKeys {
  paused: string;
  jobIndex: string;
}

/**
 * Moves up to each queue's count of jobs into this node's backup lists, in one call; with `cap`,
 * no more than that many in all, taken from the queues in the order given.
 */
export async function fetchJobs(client: RedisClient, k: FetchKeys, nodeId: string, queues: FetchQueue[], classes: ClassLimit[] = [], cap?: number): Promise<Fetched> {
  const keys = [k.paused, k.jobIndex, ...queues.flatMap((q) => [q.queueKey, q.backupKey, q.runningKey]), ...classes.map((c) => c.runningKey)];
  const argv = [nodeId, queues.length, cap ?? '', ...queues.flatMap((q) => [q.count, q.name, q.globalLimit ?? '']), ...classes.flatMap((c) => [c.name, c.limit])];
  const [jobs, errors] = (await run(client, 'fetch', keys, argv)) as [string[][], Array<[number, string]>];
  return {
    jobs,
    errors: errors.filter(([i]) => i > 0).map(([i, message]) => [i - 1, message]),
    classErrors: errors.filter(([i]) => i === 0).map(([, message]) => message),
  };
}

/** The job index, which every move of a job updates. */
export interface IndexKeys {
  jobIndex: string;
}

/** What a fetched job holds until it is settled, besides its backup entry. */
export interface Held {
  /** Running hashes it holds a slot in (its queue's, its class's), and this node's id. */
  slots: string[];
  nodeId: string;
  /** Its unique lock and jid, when the lock is to be released with this step. */
  lock?: { lockKey: string; jid: string };
}

/** Acks many plain jobs in one call; per job 1 (acked), 0 (gone) or the message of a broken backup key. */
export async function ackBatch(client: RedisClient, jobIndex: string, acks: Array<{ backup: string; raw: string; jid: string }>): Promise<Array<number | string>> {
  return (await run(client, 'ack-batch', [jobIndex, ...acks.map((a) => a.backup)], acks.flatMap((a) => [a.raw, a.jid]))) as Array<number | string>;
}

/** Acks a job: LREM, unindex and release in one step. False when it was gone. `keepIndex`: it runs on. */
export async function ackJob(client: RedisClient, index: IndexKeys, backup: string, raw: string, jid: string, held: Held, keepIndex = false): Promise<boolean> {
  const keys = [backup, index.jobIndex, held.lock?.lockKey ?? backup, ...held.slots];
  return (await run(client, 'ack', keys, [raw, jid, held.lock?.jid ?? '', held.nodeId, keepIndex ? 'keep' : ''])) === 1;
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
}

/** Moves one job from a backup list back into its queue, giving back its slots. */
export async function requeueJob(client: RedisClient, jobIndex: string, r: Requeue, held: Pick<Held, 'slots' | 'nodeId'>): Promise<boolean> {
  const keys = [r.backup, r.queueKey, jobIndex, ...held.slots];
  return (await run(client, 'requeue-job', keys, [r.raw, r.rewritten ?? r.raw, r.end, held.nodeId, r.jid, r.queue])) === 1;
}

/**
 * Lets go of a unique lock if `lock.jid` still holds it, forgets `doneJid` in the index, and gives
 * back the running slots in `held` (an at-most-once job's, kept while it ran).
 */
export async function releaseJob(
  client: RedisClient,
  index: IndexKeys,
  lock: { lockKey: string; jid: string } | undefined,
  doneJid = '',
  held: Pick<Held, 'slots' | 'nodeId'> = { slots: [], nodeId: '' },
): Promise<boolean> {
  const keys = [lock?.lockKey ?? index.jobIndex, index.jobIndex, ...held.slots];
  return (await run(client, 'release', keys, [lock?.jid ?? '', doneJid, held.slots.length > 0 ? held.nodeId : ''])) === 1;
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
}

/** Files a failed job in `target`; false when it was no longer in its backup list. */
export async function failJob(client: RedisClient, index: IndexKeys, e: FailEntry): Promise<boolean> {
  const keys = [e.backup, e.target, index.jobIndex, ...(e.held?.slots ?? [])];
  const argv = [
    e.raw, e.rewritten, formatScore(e.score), e.trimBelow === undefined ? '' : formatScore(e.trimBelow), e.maxEntries ?? '',
    e.held?.nodeId ?? '', e.jid, e.place, e.taken ? 'taken' : '',
  ];
  return (await run(client, 'fail', keys, argv)) === 1;
}

/** Puts a whole backup list back into its queue, and drops the node's global-limit count there. */
export async function requeueBackup(client: RedisClient, keys: Keys, nodeId: string, queue: string): Promise<number> {
  const scriptKeys = [keys.backup(nodeId, queue), keys.queue(queue), keys.queues, keys.jobIndex, keys.running(queue)];
  return (await run(client, 'requeue-backup', scriptKeys, [queue, nodeId])) as number;
}

export interface DueMove {
  /** The sorted set it is in: schedule, retry, or (on request) dead. */
  source: string;
  queueKey: string;
  queue: string;
  raw: string;
  /** The job as it goes into the queue (with its new enqueued_at). */
  enqueued: string;
  jid: string;
}

/** Moves one job from a sorted set into its queue; false when it was gone already. */
export async function enqueueDue(client: RedisClient, keys: Keys, m: DueMove): Promise<boolean> {
  return (await run(client, 'enqueue-due', [m.source, m.queueKey, keys.queues, keys.jobIndex], [m.raw, m.enqueued, m.queue, m.jid])) === 1;
}

/** Moves one unreadable job from schedule or retry to the dead set, as `entry` with jid `jid`. */
export async function buryDue(client: RedisClient, keys: Keys, source: string, raw: string, entry: string, jid: string, score: number): Promise<boolean> {
  return (await run(client, 'bury-due', [source, keys.dead, keys.jobIndex], [raw, entry, formatScore(score), jid])) === 1;
}

/**
 * Empties a schedule, retry or dead set, forgetting its jobs in the index and letting go of the
 * unique locks they held; how many entries it held.
 */
export async function clearSet(client: RedisClient, keys: Keys, set: 'schedule' | 'retry' | 'dead'): Promise<number> {
  const [count, locks] = (await run(client, 'clear-set', [keys[set], keys.jobIndex], [set])) as [number, string[]];
  for (let i = 0; i < locks.length; i += 2) await releaseJob(client, keys, { lockKey: keys.uniqueLock(locks[i]), jid: locks[i + 1] });
  return count;
}

/** The raw job with `jid` in one list (a queue or a backup list), searched inside Redis. */
export async function findInList(client: RedisClient, list: string, jid: string): Promise<string | null> {
  return (await run(client, 'find-in-list', [list], [jid])) as string | null;
}

/**
 * Deletes a waiting job found at `location` in the index, with the unique lock its `unique_key`
 * names if the job holds it; false when it had moved meanwhile.
 */
export async function deleteJob(client: RedisClient, keys: Keys, where: string, raw: string, jid: string, location: string): Promise<boolean> {
  const uniqueKey = jsonObject(raw)?.unique_key;
  const lockKey = typeof uniqueKey === 'string' ? keys.uniqueLock(uniqueKey) : keys.jobIndex;
  return (await run(client, 'delete-job', [where, keys.jobIndex, lockKey], [raw, jid, location])) === 1;
}

export interface DeadNode {
  nodes: string;
  identities: string;
  processes: string;
  queuesSet: string;
  processKey: string;
  processWorkersKey: string;
  nodeId: string;
  identity: string;
  cutoff: number;
  jobIndex: string;
  /** The dead node's backup lists with their queues and running hashes. */
  backups: Array<{ backup: string; queue: string; running: string; name: string }>;
  /** Running hashes of every limit (queues', classes'), where the dead node's slots are dropped. */
  runningKeys: string[];
}

/** Claims a dead node and requeues its backup lists; the jobs moved, or -1 when it was not dead. */
export async function recoverNode(client: RedisClient, d: DeadNode): Promise<number> {
  const keys = [
    d.nodes, d.identities, d.processes, d.queuesSet, d.processKey, d.processWorkersKey, d.jobIndex,
    ...d.backups.flatMap((b) => [b.backup, b.queue, b.running]), ...d.runningKeys,
  ];
  const argv = [d.nodeId, formatScore(d.cutoff), d.identity, d.backups.length, ...d.backups.map((b) => b.name)];
  return (await run(client, 'recover-node', keys, argv)) as number;
}

export interface NewJob {
  queue: string;
  queueKey: string;
  json: string;
  jid: string;
  /** Epoch seconds to run at; absent for now. */
  runAt?: number;
  maxlen?: number;
  unique?: { lockKey: string; ttl: number };
}

export class QueuePausedError extends Error {
  override readonly name = 'QueuePausedError';
}

export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

/** Writes jobs all or none; per job its jid (the holder's on a unique conflict) and whether it conflicted. */
export async function enqueueJobs(client: RedisClient, keys: Keys, jobs: NewJob[]): Promise<Array<{ jid: string; conflict: boolean }>> {
  const scriptKeys = [keys.queues, keys.schedule, keys.paused, keys.jobIndex, ...jobs.flatMap((j) => [j.queueKey, j.unique?.lockKey ?? j.queueKey])];
  const argv: Array<string | number> = [jobs.length];
  for (const j of jobs) argv.push(j.queue, j.json, j.runAt === undefined ? '' : formatScore(j.runAt), j.maxlen ?? '', j.unique?.ttl ?? '');
  for (const j of jobs) argv.push(j.jid);
  try {
    const result = (await run(client, 'enqueue', scriptKeys, argv)) as Array<[string, number]>;
    return result.map(([jid, conflict]) => ({ jid, conflict: conflict === 1 }));
  } catch (err) {
    const message = (err as Error).message;
    if (message.startsWith('NEXQ_PAUSED ')) throw new QueuePausedError(`enqueue refused: ${message.slice(12)}`);
    if (message.startsWith('NEXQ_FULL ')) throw new QueueFullError(`enqueue refused: ${message.slice(10)}`);
    throw err;
  }
}

/** What one call of enqueue-periodic.lua did. */
export type PeriodicOutcome = 'enqueued' | 'already' | 'new-schedule';

/**
 * Enqueues tick `tick` (epoch seconds) of a periodic job unless it or a later tick was enqueued
 * already, in one atomic step. `boot`: the node's first call for this schedule, which only records
 * the tick of a schedule Redis has no state for.
 */
export async function enqueuePeriodic(client: RedisClient, keys: Keys, state: string, queueName: string, tick: number, json: string, jid: string, boot: boolean): Promise<PeriodicOutcome> {
  const scriptKeys = [state, keys.queues, keys.queue(queueName), keys.jobIndex];
  const result = (await run(client, 'enqueue-periodic', scriptKeys, [tick, json, queueName, boot ? 'boot' : '', jid])) as number;
  return result === 1 ? 'enqueued' : result === 0 ? 'already' : 'new-schedule';
}

/** Scores as Sidekiq writes them: epoch seconds with microseconds. */
export function formatScore(seconds: number): string {
  return seconds.toFixed(6);
}
