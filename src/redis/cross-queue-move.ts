// A due job bound for another queue than its set's (Sidekiq's `retry_queue`, or `nexq retry` of a
// dead job whose queue differs) in the per-queue key layout: its set and its queue are in
// different cluster slots, so no script can move it in one step. Three steps, each in one slot:
//   1. lease (set's slot): lease-due.lua pushes its score LEASE_SECONDS ahead, so of several
//      schedulers one moves it, and if this one dies it is due again when the lease ends;
//   2. push (queue's slot): LPUSH into its queue, its index entry (delivery count kept), and its
//      unique lock carried over (a lock holds within its queue);
//   3. drop (set's slot): ZREM, its old index entry, its old lock.
// A failed push leaves the job leased in its set (moved again when the lease ends); a crash after
// the push runs it twice. Never lost.
import type { RedisClient } from './client';
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';
import { formatScore, queueSet, runScript } from './scripts';
import { releaseJob } from './settle-scripts';

export interface DueMove {
  /** The sorted set it is in: schedule, retry, or (on request) dead. */
  source: string;
  /** The queue whose set that is (in the per-queue key layout the set belongs to one queue). */
  sourceQueue: string;
  /** The queue it goes into (its `queue` field). */
  queue: string;
  raw: string;
  /** The job as it goes into the queue (with its new enqueued_at). */
  enqueued: string;
  jid: string;
  /** Now by the node's Clock (Redis' time): the lease runs from it. */
  now: number;
  /** Only if scored at or before this (the scheduler: now); any score when absent (on request). */
  dueBy?: number;
}

export const LEASE_SECONDS = 30;
const DROP_ATTEMPTS = 3;

export async function moveAcrossQueues(client: RedisClient, keys: Keys, m: DueMove): Promise<boolean> {
  const { now } = m;
  const dueBy = m.dueBy === undefined ? '' : formatScore(m.dueBy);
  if ((await runScript(client, 'lease-due', [m.source], [m.raw, dueBy, formatScore(now + LEASE_SECONDS)])) !== 1)
    return false;
  const from = keys.jobIndex(m.sourceQueue);
  const uniqueKey = jsonObject(m.raw)?.unique_key;
  const oldLock = typeof uniqueKey === 'string' ? keys.uniqueLock(uniqueKey, m.sourceQueue) : undefined;
  const [entry, holder, ttlMs] = await readSource(client, from, m.jid, oldLock);
  const ownsLock = oldLock !== undefined && m.jid !== '' && holder === m.jid && ttlMs > 0;

  await queueSet(client, keys, [m.queue]);
  const push = client.multi().lpush(keys.queue(m.queue), m.enqueued);
  // The index only describes: its write never decides whether the move happened.
  if (m.jid !== '')
    push.hset(keys.jobIndex(m.queue), m.jid, `${/^(\d+)\t/.exec(entry ?? '')?.[1] ?? '0'}\tqueued\t${m.queue}`);
  if (ownsLock) push.set(keys.uniqueLock(uniqueKey as string, m.queue), m.jid, 'PX', ttlMs, 'NX');
  const replies = await push.exec();
  const pushed = replies?.[0];
  if (!pushed || pushed[0]) throw pushed?.[0] ?? new Error(`the push into queue ${m.queue} was aborted`);

  for (let attempt = 1; ; attempt++) {
    try {
      const drop = client.multi().zrem(m.source, m.raw);
      if (m.jid !== '') drop.hdel(from, m.jid);
      await drop.exec();
      if (ownsLock) await releaseJob(client, from, { lockKey: oldLock, jid: m.jid });
      return true;
    } catch (err) {
      // Still leased in its set: it would run again when the lease ends.
      if (attempt >= DROP_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/** The job's index entry in its set's queue, and its unique lock's holder and ms to live. */
async function readSource(
  client: RedisClient,
  index: string,
  jid: string,
  lock: string | undefined,
): Promise<[string | null, string | null, number]> {
  const read = client.multi().hget(index, jid);
  if (lock) read.get(lock).pttl(lock);
  const replies = (await read.exec()) ?? [];
  const value = (i: number) => (replies[i] && !replies[i][0] ? replies[i][1] : null);
  return [value(0) as string | null, (value(1) as string | null) ?? null, Number(value(2) ?? -1)];
}
