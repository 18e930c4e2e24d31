// Loads the Lua scripts of ./lua once per client and gives each a typed wrapper.
// Every key a script touches is passed in KEYS, so a cluster mode can route it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import type { Keys } from './keys';

const SCRIPTS = ['fetch', 'fail', 'requeue-backup', 'enqueue-due', 'bury-due', 'recover-node', 'reclaim', 'enqueue', 'ack', 'nack', 'unlock', 'enqueue-periodic'] as const;
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

export type ScriptedRedis = Redis & { readonly nexqScripts: true };

export function defineScripts(client: Redis): ScriptedRedis {
  for (const script of SCRIPTS) client.defineCommand(commandName(script), { lua: source(script) });
  return Object.assign(client, { nexqScripts: true as const });
}

type Runner = (numberOfKeys: number, ...args: Array<string | number>) => Promise<unknown>;
function run(client: Redis, script: ScriptName, keys: string[], argv: Array<string | number>): Promise<unknown> {
  const runner = (client as unknown as Record<string, Runner>)[commandName(script)];
  return runner.call(client, keys.length, ...keys, ...argv);
}

export interface Fetched {
  /** The raw jobs moved, per queue, oldest first. */
  jobs: string[][];
  /** Queues (by index) whose keys failed, with Redis' message. */
  errors: Array<[index: number, message: string]>;
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

/** Moves up to each queue's count of jobs into this node's backup lists, in one call. */
export async function fetchJobs(client: Redis, paused: string, nodeId: string, queues: FetchQueue[]): Promise<Fetched> {
  const keys = [paused, ...queues.flatMap((q) => [q.queueKey, q.backupKey, q.runningKey])];
  const argv = [nodeId, ...queues.flatMap((q) => [q.count, q.name, q.globalLimit ?? ''])];
  const [jobs, errors] = (await run(client, 'fetch', keys, argv)) as [string[][], Array<[number, string]>];
  return { jobs, errors: errors.map(([i, message]) => [i - 1, message]) };
}

/** What a settled job gives back besides its backup entry. */
export interface Held {
  /** Its queue's running hash and this node's id, when the queue has a global limit. */
  slot?: { runningKey: string; nodeId: string };
  /** Its unique lock and jid, when the lock is to be released with this step. */
  lock?: { lockKey: string; jid: string };
}

/** Acks a job that holds a lock or a global slot: LREM and release in one step. False when it was gone. */
export async function ackJob(client: Redis, backup: string, raw: string, held: Held): Promise<boolean> {
  const keys = [backup, held.lock?.lockKey ?? backup, held.slot?.runningKey ?? backup];
  return (await run(client, 'ack', keys, [raw, held.lock?.jid ?? '', held.slot?.nodeId ?? ''])) === 1;
}

/** Puts a nacked job back at the producer end of its queue with its counter raised. */
export async function nackJob(client: Redis, backup: string, queue: string, raw: string, rewritten: string, held: Held): Promise<boolean> {
  return (await run(client, 'nack', [backup, queue, held.slot?.runningKey ?? backup], [raw, rewritten, held.slot?.nodeId ?? ''])) === 1;
}

/** Releases a unique lock if `jid` still holds it. */
export async function unlockUnique(client: Redis, lockKey: string, jid: string): Promise<boolean> {
  return (await run(client, 'unlock', [lockKey], [jid])) === 1;
}

export interface FailEntry {
  backup: string;
  target: string;
  raw: string;
  rewritten: string;
  score: number;
  /** Dead set only: entries scored below this are dropped. */
  trimBelow?: number;
  /** Dead set only: keep at most this many entries. */
  maxEntries?: number;
  /** The global-limit slot the job holds, released with it. */
  slot?: { runningKey: string; nodeId: string };
}

/** Files a failed job in `target`; false when it was no longer in its backup list. */
export async function failJob(client: Redis, e: FailEntry): Promise<boolean> {
  const argv = [e.raw, e.rewritten, formatScore(e.score), e.trimBelow === undefined ? '' : formatScore(e.trimBelow), e.maxEntries ?? '', e.slot?.nodeId ?? ''];
  return (await run(client, 'fail', [e.backup, e.target, e.slot?.runningKey ?? e.backup], argv)) === 1;
}

/** Puts a whole backup list back into its queue (and drops the node's global-limit count there). */
export async function requeueBackup(client: Redis, keys: Keys, nodeId: string, queue: string): Promise<number> {
  const scriptKeys = [keys.backup(nodeId, queue), keys.queue(queue), keys.queues, keys.running(queue)];
  return (await run(client, 'requeue-backup', scriptKeys, [queue, nodeId])) as number;
}

export async function enqueueDue(client: Redis, source: string, queue: string, queuesSet: string, raw: string, enqueued: string, queueName: string): Promise<boolean> {
  return (await run(client, 'enqueue-due', [source, queue, queuesSet], [raw, enqueued, queueName])) === 1;
}

export async function buryDue(client: Redis, source: string, dead: string, raw: string, entry: string, score: number): Promise<boolean> {
  return (await run(client, 'bury-due', [source, dead], [raw, entry, formatScore(score)])) === 1;
}

/** Moves one unworked job from a backup list back to the consumer end of its queue. */
export async function reclaimJob(client: Redis, backup: string, queue: string, raw: string, slot?: { runningKey: string; nodeId: string }): Promise<boolean> {
  return (await run(client, 'reclaim', [backup, queue, slot?.runningKey ?? backup], [raw, slot?.nodeId ?? ''])) === 1;
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
  /** The dead node's backup lists with their queues and running hashes. */
  backups: Array<{ backup: string; queue: string; running: string; name: string }>;
}

/** Claims a dead node and requeues its backup lists; the jobs moved, or -1 when it was not dead. */
export async function recoverNode(client: Redis, d: DeadNode): Promise<number> {
  const keys = [d.nodes, d.identities, d.processes, d.queuesSet, d.processKey, d.processWorkersKey, ...d.backups.flatMap((b) => [b.backup, b.queue, b.running])];
  const argv = [d.nodeId, formatScore(d.cutoff), d.identity, ...d.backups.map((b) => b.name)];
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
export async function enqueueJobs(client: Redis, queuesSet: string, schedule: string, paused: string, jobs: NewJob[]): Promise<Array<{ jid: string; conflict: boolean }>> {
  const keys = [queuesSet, schedule, paused, ...jobs.flatMap((j) => [j.queueKey, j.unique?.lockKey ?? j.queueKey])];
  const argv: Array<string | number> = [jobs.length];
  for (const j of jobs) argv.push(j.queue, j.json, j.runAt === undefined ? '' : formatScore(j.runAt), j.maxlen ?? '', j.unique?.ttl ?? '');
  for (const j of jobs) argv.push(j.jid);
  try {
    const result = (await run(client, 'enqueue', keys, argv)) as Array<[string, number]>;
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
export async function enqueuePeriodic(
  client: Redis,
  state: string,
  queuesSet: string,
  queue: string,
  tick: number,
  json: string,
  queueName: string,
  boot: boolean,
): Promise<PeriodicOutcome> {
  const result = (await run(client, 'enqueue-periodic', [state, queuesSet, queue], [tick, json, queueName, boot ? 'boot' : ''])) as number;
  return result === 1 ? 'enqueued' : result === 0 ? 'already' : 'new-schedule';
}

/** Scores as Sidekiq writes them: epoch seconds with microseconds. */
export function formatScore(seconds: number): string {
  return seconds.toFixed(6);
}
