// Loads the Lua scripts of ./lua once per client (each behind its prelude) and runs them: every key
// a script touches is passed in KEYS, so a cluster mode can route it and the per-queue layout can
// check they share a slot. The typed wrappers live by family beside the keys they touch: the fetch
// (./fetch-script.ts), the settle steps (./settle-scripts.ts), enqueue, moves, batches, fair queues.
import { CrossSlotError, fromReply } from './errors';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { keySlot, RedisClient } from './client';
import type { Keys } from './keys';

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
  'clear-detach',
  'clear-stretch',
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
  'group-activity',
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
