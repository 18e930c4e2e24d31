// Finding a job by jid without scanning: the job index (<ns>:nexq:jobs, jid -> deliveries and
// location: `<deliveries>\t<state>[\t<queue>[\t<node>] | \t<score>]`) names the
// one key that holds the job, and every script that moves a job keeps it in step in the same
// atomic step. Reading the location and then the job are two steps, so a job that moves between
// them is looked up again at its new place.
//
// Jobs that other producers push straight into a queue (Sidekiq's client, Exq) enter the index
// when a nexq node fetches them; until then `locateJob` does not know them. In the per-queue key
// layout each queue has its own index, holding the jobs of that queue's keys, and a lookup asks
// every known queue's index.
import { JobRunningError } from './errors';
export { JobRunningError };
import type { RedisClient } from './client';
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';
import { knownQueues } from './known-queues';
import { deleteJob, findInList } from './move-scripts';
import { findInGroups, rawOfFairMember } from './fair-queue';

export type JobState = 'queued' | 'running' | 'schedule' | 'retry' | 'dead';

export interface JobLocation {
  state: JobState;
  /** The queue it waits in or runs from (queued, running). */
  queue?: string;
  /** The node whose backup list holds it (running). */
  node?: string;
  /** Its sorted-set score, epoch seconds (schedule: when it runs; retry: when it is retried; dead: when it died). */
  score?: number;
}

/** What an index entry says, state by state: each state carries its own fields. */
type IndexedLocation =
  | { state: 'queued'; queue: string }
  | { state: 'running'; queue: string; node: string }
  | { state: 'schedule' | 'retry' | 'dead'; score: number };

export interface LocatedJob extends JobLocation {
  jid: string;
  /** The queue whose index (and, per-queue key layout, whose sets) holds it; '' in the shared layout. */
  home: string;
  /** The Redis key that holds it. */
  key: string;
  /** The job exactly as stored. */
  raw: string;
  /** The member that holds it in a fair queue's groups (`key` is their sorted set then), to remove it by. */
  member?: string;
  /** Times it was handed to a handler (re-runs after a crash included). */
  deliveries: number;
  /** The index entry it was found under (for a later atomic step that checks it). */
  indexEntry: string;
}

const ATTEMPTS = 5;

/** An index entry's delivery count and location; undefined when it cannot be read. */
export function parseEntry(entry: string): (IndexedLocation & { deliveries: number }) | undefined {
  const [count, ...rest] = entry.split('\t');
  const at = parseLocation(rest);
  return at && /^\d+$/.test(count) ? { ...at, deliveries: Number(count) } : undefined;
}

function parseLocation([state, first, second]: string[]): IndexedLocation | undefined {
  switch (state) {
    case 'queued':
      return first ? { state, queue: first } : undefined;
    // `taken`: an at-most-once job running off its backup list.
    case 'running':
    case 'taken':
      return first && second ? { state: 'running', queue: first, node: second } : undefined;
    case 'schedule':
    case 'retry':
    case 'dead':
      return first && Number.isFinite(Number(first)) ? { state, score: Number(first) } : undefined;
    default:
      return undefined;
  }
}

function keyOf(keys: Keys, at: IndexedLocation, home: string): string {
  switch (at.state) {
    case 'queued':
      return keys.queue(at.queue);
    case 'running':
      return keys.backup(at.node, at.queue);
    default:
      return keys.jobSet(at.state, home);
  }
}

/** The indexes that may know a job: the one index, or each known queue's. */
async function indexesOf(redis: RedisClient, keys: Keys): Promise<Array<{ key: string; queue?: string }>> {
  return keys.jobIndexes(keys.perQueue ? await knownQueues(redis, keys) : []);
}

async function fetchAt(redis: RedisClient, key: string, at: IndexedLocation, jid: string): Promise<string | null> {
  if (at.state === 'queued' || at.state === 'running') return findInList(redis, key, jid);
  const score = String(at.score);
  const members = await redis.zrangebyscore(key, score, score);
  return members.find((raw) => jsonObject(raw)?.jid === jid) ?? null;
}

/** Where the job with `jid` is, with its payload and delivery count; undefined when nexq does not know it. */
export async function locateJob(redis: RedisClient, keys: Keys, jid: string): Promise<LocatedJob | undefined> {
  const indexes = await indexesOf(redis, keys);
  const entries = await Promise.all(indexes.map(({ key }) => redis.hget(key, jid)));
  for (let i = 0; i < indexes.length; i++) {
    if (entries[i] === null) continue;
    const found = await locateIn(redis, keys, indexes[i].key, indexes[i].queue ?? '', jid, entries[i]);
    if (found) return found;
  }
  return undefined;
}

/** The raw index entry of `jid`, and the queue whose index holds it; undefined when none does. */
export async function indexEntryOf(
  redis: RedisClient,
  keys: Keys,
  jid: string,
): Promise<{ entry: string; home: string } | undefined> {
  const indexes = await indexesOf(redis, keys);
  const entries = await Promise.all(indexes.map(({ key }) => redis.hget(key, jid)));
  for (const [i, entry] of entries.entries()) if (entry !== null) return { entry, home: indexes[i].queue ?? '' };
  return undefined;
}

async function locateIn(
  redis: RedisClient,
  keys: Keys,
  index: string,
  home: string,
  jid: string,
  first: string | null,
): Promise<LocatedJob | undefined> {
  let entry = first;
  for (let attempt = 0; attempt < ATTEMPTS && entry !== null; attempt++) {
    const at = parseEntry(entry);
    if (!at) return undefined;
    const key = keyOf(keys, at, home);
    const raw = await fetchAt(redis, key, at, jid);
    if (raw !== null) return { ...at, jid, home, key, raw, indexEntry: entry };
    // A fair queue's job waits in its groups once a fetch moved it there from the list.
    if (at.state === 'queued') {
      const member = await findInGroups(redis, keys, at.queue, jid);
      const fairKey = keys.fair(at.queue).jobs;
      if (member !== undefined)
        return { ...at, jid, home, key: fairKey, raw: rawOfFairMember(member), member, indexEntry: entry };
    }
    const now = await redis.hget(index, jid);
    // Unchanged but not there: another system took the job without telling the index (stale).
    if (now === entry) return undefined;
    entry = now;
  }
  return undefined;
}

/**
 * Deletes the waiting job `jid` (queued, scheduled, retry or dead) and forgets it; false when nexq
 * does not know it. A running job is not deleted: cancel it.
 */
export async function deleteJobByJid(redis: RedisClient, keys: Keys, jid: string): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = await locateJob(redis, keys, jid);
    if (!found) return false;
    if (found.state === 'running')
      throw new JobRunningError(`job ${jid} is running on node ${found.node}: cancel it instead`);
    const fairQueue = found.member === undefined ? undefined : found.queue;
    if (
      await deleteJob(redis, keys, found.home, found.key, found.member ?? found.raw, jid, found.indexEntry, fairQueue)
    )
      return true;
  }
  return false;
}
