// Jobs waiting in a queue's list under another namespace than the node's: a Sidekiq producer writes
// `queue:<q>` (no namespace), Exq `exq:queue:<q>`, redis-namespace `<x>:queue:<q>`. A node that
// reads another namespace never sees them, and nothing else says so. Found by one bounded SCAN
// for `*queue:*` (the shared layout's list names), so a very large keyspace is only partly looked
// at; read once at a node's start and by `nexq stats`, never on a hot path. A namespace with live
// processes of its own (another app sharing the Redis) is left out: its jobs have their consumers.
import { Cluster } from 'ioredis';
import type { Keys } from './keys';
import type { ScriptedRedis } from './scripts';

/** One queue's list of waiting jobs under another namespace. */
export interface QueueElsewhere {
  /** The namespace it is under: '' for none (Sidekiq's layout). */
  namespace: string;
  queue: string;
  size: number;
}

/** Keys SCAN looks at per call, and the most calls: a keyspace past 200,000 keys is looked at in part. */
const SCAN_COUNT = 1000;
const MAX_SCANS = 200;

/**
 * The lists `<x>:queue:<q>` (or `queue:<q>`) holding jobs, for a namespace other than `keys`'; only
 * the queues `queues` names when given. Empty on a Redis Cluster (Sidekiq and Exq run on none).
 */
export async function queuesUnderOtherNamespaces(
  redis: ScriptedRedis,
  keys: Keys,
  queues?: readonly string[],
): Promise<QueueElsewhere[]> {
  if (redis instanceof Cluster) return [];
  const wanted = queues && new Set(queues);
  const found = new Map<string, { namespace: string; queue: string }>();
  let cursor = '0';
  for (let scans = 0; scans < MAX_SCANS; scans++) {
    const [next, batch] = await redis.scan(cursor, 'MATCH', '*queue:*', 'COUNT', SCAN_COUNT);
    for (const key of batch) {
      const list = parseQueueKey(key);
      if (!list || list.namespace === keys.namespace || (wanted && !wanted.has(list.queue))) continue;
      found.set(key, list);
    }
    cursor = next;
    if (cursor === '0') break;
  }
  if (found.size === 0) return [];
  // A namespace whose own processes are alive has its consumers (another app on this Redis): not ours to name.
  const served = await namespacesWithLiveProcesses(redis, [...new Set([...found.values()].map((f) => f.namespace))]);
  for (const [key, list] of found) if (served.has(list.namespace)) found.delete(key);
  if (found.size === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of found.keys()) pipeline.type(key).llen(key);
  const replies = (await pipeline.exec()) ?? [];
  const lists = [...found.values()].map((list, i) => ({
    ...list,
    // A key of another type (a hash, a string) answers LLEN with an error: it is no queue.
    size: replies[2 * i]?.[1] === 'list' ? Number(replies[2 * i + 1]?.[1] ?? 0) : 0,
  }));
  return lists
    .filter((list) => list.size > 0)
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.queue.localeCompare(b.queue));
}

/** The namespaces of `namespaces` with a live process entry (`<ns>:processes` names it and its hash is there). */
async function namespacesWithLiveProcesses(redis: ScriptedRedis, namespaces: string[]): Promise<Set<string>> {
  const live = new Set<string>();
  for (const namespace of namespaces) {
    const prefix = namespace === '' ? '' : `${namespace}:`;
    const identities = await redis.smembers(`${prefix}processes`);
    if (identities.length === 0) continue;
    if ((await redis.exists(...identities.map((identity) => `${prefix}${identity}`))) > 0) live.add(namespace);
  }
  return live;
}

/** `<ns>:queue:<q>` or `queue:<q>` as namespace and queue; undefined for backup lists and other keys. */
export function parseQueueKey(key: string): { namespace: string; queue: string } | undefined {
  const at = key.startsWith('queue:') ? 0 : key.lastIndexOf(':queue:') + 1;
  if (at === 0 && !key.startsWith('queue:')) return undefined;
  const queue = key.slice(at + 'queue:'.length);
  // Backup lists (`queue:backup::<node>::<q>`), per-queue layout keys (`queue:{q}`) and odd names are not queues.
  if (queue === '' || queue.includes(':') || queue.includes('{')) return undefined;
  const namespace = at === 0 ? '' : key.slice(0, at - 1);
  // A queue a clear of some namespace took away (`<ns>:nexq:clearing:queue:<q>`, Keys#clearing) is no queue.
  if (namespace === 'nexq:clearing' || namespace.endsWith(':nexq:clearing')) return undefined;
  return { namespace, queue };
}

/** Lists and namespaces a line names, the largest first; the rest are counted. */
const MOST_NAMED = 3;

/** What the other namespaces hold, in one line naming the option to set (for a node's log and `nexq stats`). */
export function describeElsewhere(found: QueueElsewhere[], namespace: string, option: string): string {
  const largest = [...found].sort((a, b) => b.size - a.size);
  const where = largest
    .slice(0, MOST_NAMED)
    .map((f) => `${f.size} in ${f.namespace === '' ? '' : `${f.namespace}:`}queue:${f.queue}`);
  if (found.length > MOST_NAMED) where.push(`${found.length - MOST_NAMED} more list(s)`);
  const namespaces = [...new Set(largest.map((f) => f.namespace))];
  const names = namespaces.slice(0, MOST_NAMED).map((ns) => `${JSON.stringify(ns)}${nameOf(ns)}`);
  const others = namespaces.length > MOST_NAMED ? ` (or one of ${namespaces.length - MOST_NAMED} more)` : '';
  return (
    `jobs wait under another namespace than ${JSON.stringify(namespace)}: ${where.join(', ')}; ` +
    `to run or see them set ${option} to ${names.join(' or ')}${others}`
  );
}

/** Whose layout a namespace is, where it is a known one. */
function nameOf(namespace: string): string {
  if (namespace === '') return " (Sidekiq's layout, no namespace)";
  if (namespace === 'exq') return " (Exq's default)";
  return '';
}
