// Loads the Lua scripts of ./lua once per client and gives each a typed wrapper.
// Every key a script touches is passed in KEYS, so a cluster mode can route it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';

const SCRIPTS = ['fetch', 'fail', 'requeue-backup', 'enqueue-due', 'bury-due', 'recover-node', 'reclaim'] as const;
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

/** Moves up to `counts[i]` jobs from `queues[i]` into `backups[i]`. */
export async function fetchJobs(client: Redis, queues: string[], backups: string[], counts: number[]): Promise<Fetched> {
  const keys: string[] = [];
  queues.forEach((q, i) => keys.push(q, backups[i]));
  const [jobs, errors] = (await run(client, 'fetch', keys, counts)) as [string[][], Array<[number, string]>];
  return { jobs, errors: errors.map(([i, message]) => [i - 1, message]) };
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
}

/** Files a failed job in `target`; false when it was no longer in its backup list. */
export async function failJob(client: Redis, e: FailEntry): Promise<boolean> {
  const argv = [e.raw, e.rewritten, formatScore(e.score), e.trimBelow === undefined ? '' : formatScore(e.trimBelow), e.maxEntries ?? ''];
  return (await run(client, 'fail', [e.backup, e.target], argv)) === 1;
}

export async function requeueBackup(client: Redis, backup: string, queue: string, queuesSet: string, queueName: string): Promise<number> {
  return (await run(client, 'requeue-backup', [backup, queue, queuesSet], [queueName])) as number;
}

export async function enqueueDue(client: Redis, source: string, queue: string, queuesSet: string, raw: string, enqueued: string, queueName: string): Promise<boolean> {
  return (await run(client, 'enqueue-due', [source, queue, queuesSet], [raw, enqueued, queueName])) === 1;
}

export async function buryDue(client: Redis, source: string, dead: string, raw: string, entry: string, score: number): Promise<boolean> {
  return (await run(client, 'bury-due', [source, dead], [raw, entry, formatScore(score)])) === 1;
}

/** Moves one unworked job from a backup list back to the consumer end of its queue. */
export async function reclaimJob(client: Redis, backup: string, queue: string, raw: string): Promise<boolean> {
  return (await run(client, 'reclaim', [backup, queue], [raw])) === 1;
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
  /** The dead node's backup lists with their queues. */
  backups: Array<{ backup: string; queue: string; name: string }>;
}

/** Claims a dead node and requeues its backup lists; the jobs moved, or -1 when it was not dead. */
export async function recoverNode(client: Redis, d: DeadNode): Promise<number> {
  const keys = [d.nodes, d.identities, d.processes, d.queuesSet, d.processKey, d.processWorkersKey, ...d.backups.flatMap((b) => [b.backup, b.queue])];
  const argv = [d.nodeId, formatScore(d.cutoff), d.identity, ...d.backups.map((b) => b.name)];
  return (await run(client, 'recover-node', keys, argv)) as number;
}

/** Scores as Sidekiq writes them: epoch seconds with microseconds. */
export function formatScore(seconds: number): string {
  return seconds.toFixed(6);
}
