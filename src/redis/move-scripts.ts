// Moving jobs outside a node's fetch-and-settle path: re-hydrating backup lists, due jobs out of
// the schedule and retry sets (the scheduler, `nexq retry`), bury, clear, delete, and recovering a
// dead node. Each move is one atomic script call, except where the per-queue key layout puts its
// two ends in different slots (./cross-queue-move.ts).
import type { RedisClient } from './client';
import { jsonObject } from '../job/json-object';
import type { JobSet, Keys } from './keys';
import { formatScore, queueSet, runScript } from './scripts';
import { releaseJob } from './settle-scripts';
import { groupOfFairMember, rawOfFairMember } from './fair-queue';
import { DueMove, moveAcrossQueues } from './cross-queue-move';

export type { DueMove };

/** Puts a whole backup list back into its queue, and drops the node's global-limit count there. */
export async function requeueBackup(client: RedisClient, keys: Keys, nodeId: string, queue: string): Promise<number> {
  const scriptKeys = [
    keys.backup(nodeId, queue),
    keys.queue(queue),
    keys.jobIndex(queue),
    keys.running(queue),
    ...(await queueSet(client, keys, [queue])),
  ];
  return (await runScript(client, 'requeue-backup', scriptKeys, [queue, nodeId])) as number;
}

/**
 * Moves one job from a sorted set into its queue; false when it was gone already. In the per-queue
 * key layout a job bound for another queue than its set's (Sidekiq's `retry_queue`) crosses slots:
 * see moveAcrossQueues.
 */
export async function enqueueDue(client: RedisClient, keys: Keys, m: DueMove): Promise<boolean> {
  if (keys.group(m.sourceQueue) !== keys.group(m.queue)) return moveAcrossQueues(client, keys, m);
  const scriptKeys = [
    m.source,
    keys.queue(m.queue),
    keys.jobIndex(m.queue),
    ...(await queueSet(client, keys, [m.queue])),
  ];
  return (await runScript(client, 'enqueue-due', scriptKeys, [m.raw, m.enqueued, m.queue, m.jid])) === 1;
}

/** Moves one unreadable job from `queue`'s schedule or retry set to its dead set, as `entry` with jid `jid`. */
export async function buryDue(
  client: RedisClient,
  keys: Keys,
  queue: string,
  source: string,
  raw: string,
  entry: string,
  jid: string,
  score: number,
): Promise<boolean> {
  return (
    (await runScript(
      client,
      'bury-due',
      [source, keys.dead(queue), keys.jobIndex(queue)],
      [raw, entry, formatScore(score), jid],
    )) === 1
  );
}

/**
 * Empties a schedule, retry or dead set (each queue's, in the per-queue key layout), forgetting its
 * jobs in the index and letting go of the unique locks they held; how many entries it held.
 */
export async function clearSet(
  client: RedisClient,
  keys: Keys,
  set: JobSet,
  queues: Iterable<string>,
): Promise<number> {
  let total = 0;
  for (const { key, queue = '' } of keys.jobSets(set, queues))
    total += await clearInStretches(client, keys, queue, set, [key, keys.clearing(key)]);
  return total;
}

/**
 * Empties `queue` in one step, forgetting its jobs in the index and letting go of their unique
 * locks; how many jobs it held. Jobs nodes have fetched already are not touched.
 */
export function clearQueueList(client: RedisClient, keys: Keys, queue: string): Promise<number> {
  // A fair queue's jobs wait in its groups too: they go in the same step (none for another queue).
  const fair = keys.fair(queue);
  const list = keys.queue(queue);
  return clearInStretches(client, keys, queue, 'queued', [
    ...[list, keys.clearing(list), fair.jobs, keys.clearing(fair.jobs)],
    ...[fair.groups, fair.ring, fair.parked],
  ]);
}

/** Jobs one clear-stretch call forgets at most: a few ms of Redis (a JSON decode each). */
const CLEAR_STRETCH = 2_000;

/**
 * A clear: the jobs move to their clearing keys in one step (clear-detach.lua), then leave them a
 * stretch per call (clear-stretch.lua), so no call holds Redis for long. What an earlier clear left
 * there (one under way, or one cut off) is cleared first, and counted with this one's.
 */
async function clearInStretches(
  client: RedisClient,
  keys: Keys,
  queue: string,
  place: string,
  detachKeys: string[],
): Promise<number> {
  // The clearing keys: the list's or set's, then (a queue) its fair groups' jobs.
  const clearing = [detachKeys[1], ...(detachKeys[3] ? [detachKeys[3]] : [])];
  const drain = async () => {
    let total = 0;
    for (const [i, key] of clearing.entries()) {
      for (let left = 1; left > 0;) {
        const [taken, locks, rest] = (await runScript(
          client,
          'clear-stretch',
          [key, keys.jobIndex(queue)],
          [place, CLEAR_STRETCH, i === 1 ? '1' : ''],
        )) as [number, string[], number];
        total += await releaseCleared(client, keys, queue, [taken, locks]);
        left = rest;
      }
    }
    return total;
  };
  let total = await drain();
  while ((await runScript(client, 'clear-detach', detachKeys, [place])) === -1) total += await drain();
  return total + (await drain());
}

/** What a clear's stretch answers: the entries dropped, and unique_key, jid pairs. */
type ClearReply = [count: number, locks: string[]];

/** Lets go of the unique locks a cleared key's jobs held; how many jobs it held. */
async function releaseCleared(client: RedisClient, keys: Keys, queue: string, [count, locks]: ClearReply) {
  for (let i = 0; i < locks.length; i += 2)
    await releaseJob(client, keys.jobIndex(queue), { lockKey: keys.uniqueLock(locks[i], queue), jid: locks[i + 1] });
  return count;
}

/** Elements one find-in-list call reads at most: some 10 ms of Redis for jobs of a few hundred bytes. */
const FIND_STRETCH = 10_000;
/**
 * Elements each call reads again of the stretch before it: a job removed meanwhile from what was read
 * (an ack, a delete) moves the rest one to the left, and the next call still sees them.
 */
const FIND_OVERLAP = 100;

/**
 * The raw job with `jid` in one list (a queue or a backup list), searched inside Redis a stretch per
 * call, so a long queue never holds Redis for long (find-in-list.lua).
 */
export async function findInList(client: RedisClient, list: string, jid: string): Promise<string | null> {
  for (let start = 0; ;) {
    const reply = (await runScript(client, 'find-in-list', [list], [jid, String(start), String(FIND_STRETCH)])) as
      string | number | null;
    if (typeof reply !== 'number') return reply;
    start = reply - FIND_OVERLAP;
  }
}

/**
 * Up to `limit` jobs of `queue` behind the job `anchor` (the next to run first; '' from the next to
 * run), read in one step; `anchorFound` is false when the anchor left the queue (the page then
 * starts at the next to run). The anchor is searched among the `searchMost` next jobs.
 */
export async function queuePage(
  client: RedisClient,
  keys: Keys,
  queue: string,
  anchor: string,
  limit: number,
  searchMost: number,
): Promise<{ anchorFound: boolean; raws: string[] }> {
  const [found, ...raws] = (await runScript(
    client,
    'queue-page',
    [keys.queue(queue)],
    [anchor, limit, searchMost],
  )) as [number, ...string[]];
  return { anchorFound: found === 1, raws };
}

/**
 * Deletes a waiting job found at `location` in the index, with the unique lock its `unique_key`
 * names if the job holds it; false when it had moved meanwhile.
 */
export async function deleteJob(
  client: RedisClient,
  keys: Keys,
  queue: string,
  where: string,
  raw: string,
  jid: string,
  location: string,
  fairQueue?: string,
): Promise<boolean> {
  // A job waiting in a fair queue's groups (`fairQueue`) is removed by its member there (`raw`),
  // its group's count with it.
  const uniqueKey = jsonObject(fairQueue === undefined ? raw : rawOfFairMember(raw))?.unique_key;
  const lockKey = typeof uniqueKey === 'string' ? keys.uniqueLock(uniqueKey, queue) : keys.jobIndex(queue);
  const fair =
    fairQueue === undefined
      ? { keys: [], args: [] }
      : { keys: [keys.fair(fairQueue).groups, keys.fair(fairQueue).ring], args: [groupOfFairMember(raw)] };
  const reply = await runScript(
    client,
    'delete-job',
    [where, keys.jobIndex(queue), lockKey, ...fair.keys],
    [raw, jid, location, ...fair.args],
  );
  return reply === 1;
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
  /** Seconds without a beat, by Redis' clock, after which the node is dead. */
  timeout: number;
  /** The dead node's backup lists with their queues, running hashes and job indexes (none: claim only). */
  backups: Array<{ backup: string; queue: string; running: string; jobIndex: string; name: string }>;
  /** Running hashes of every limit (queues', classes'), where the dead node's slots are dropped. */
  runningKeys: string[];
}

/** Claims a dead node and requeues its backup lists; the jobs moved, or -1 when it was not dead. */
export async function recoverNode(client: RedisClient, d: DeadNode): Promise<number> {
  const keys = [
    d.nodes,
    d.identities,
    d.processes,
    d.queuesSet,
    d.processKey,
    d.processWorkersKey,
    ...d.backups.flatMap((b) => [b.backup, b.queue, b.running, b.jobIndex]),
    ...d.runningKeys,
  ];
  const argv = [d.nodeId, d.timeout, d.identity, d.backups.length, ...d.backups.map((b) => b.name)];
  return (await runScript(client, 'recover-node', keys, argv)) as number;
}
