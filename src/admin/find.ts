// Finding a job by jid, for the CLI's `show`, `retry` and `delete` and the web dashboard. The job
// index (src/redis/job-index.ts) names the one key that holds a job. A jid it does not know — a job
// another producer pushed straight into a queue, or an entry Sidekiq itself filed — is searched for
// by scanning: ZSCAN of the schedule, retry and dead sets, LRANGE of every queue, SCAN for backup
// lists. Fine for an operator's action; not something to run in a loop against a large Redis.
import { allBackups } from '../redis/backups';
import { LocatedJob, locateJob } from '../redis/job-index';
import { knownQueues } from '../redis/known-queues';
import { findInGroups, rawOfFairMember } from '../redis/fair-queue';
import { AdminContext, JobSet, setKeys } from './context';
import { jsonObject } from '../job/json-object';

export type Place = 'queue' | 'schedule' | 'retry' | 'dead' | 'running';

export interface Found {
  where: Place;
  /** The Redis key holding it. */
  key: string;
  /** The job as stored (a fair queue's job without the prefix of its member: see `member`). */
  raw: string;
  /** The exact sorted-set member of a job waiting in a fair queue's groups (`key`), to remove it by. */
  member?: string;
  /** The queue it waits in (queue and running), or whose set holds it (per-queue key layout). */
  queue?: string;
  /** The node whose backup list holds it (running). */
  node?: string;
  /** Its sorted-set score, epoch seconds (schedule, retry, dead). */
  score?: number;
  /** Its entry in the job index, when it was found through it. */
  indexEntry?: string;
  /** Times it was handed to a handler (known for indexed jobs). */
  deliveries?: number;
}

function fromIndex(job: LocatedJob): Found {
  const { key, raw, member, node, score, indexEntry, deliveries } = job;
  const queue = job.queue ?? (job.home || undefined);
  const where = job.state === 'queued' ? 'queue' : job.state;
  return { where, key, raw, ...(member === undefined ? {} : { member }), queue, node, score, indexEntry, deliveries };
}

/** The job as the index places it, or undefined when the index does not know it (or is stale). */
async function indexed({ redis, keys }: AdminContext, jid: string): Promise<Found | undefined> {
  const job = await locateJob(redis, keys, jid);
  return job && fromIndex(job);
}

const CHUNK = 1000;

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

function hasJid(raw: string, jid: string): boolean {
  return raw.includes(jid) && jsonObject(raw)?.jid === jid;
}

async function inSet(
  { redis }: AdminContext,
  key: string,
  queue: string | undefined,
  where: Place,
  jid: string,
): Promise<Found[]> {
  const found: Found[] = [];
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'MATCH', `*${globEscape(jid)}*`, 'COUNT', CHUNK);
    for (let i = 0; i < flat.length; i += 2)
      if (hasJid(flat[i], jid)) found.push({ where, key, queue, raw: flat[i], score: Number(flat[i + 1]) });
    cursor = next;
  } while (cursor !== '0');
  return found;
}

async function inList(
  { redis }: AdminContext,
  key: string,
  jid: string,
  place: Omit<Found, 'key' | 'raw'>,
): Promise<Found[]> {
  const found: Found[] = [];
  const length = await redis.llen(key);
  for (let start = 0; start < length; start += CHUNK) {
    for (const raw of await redis.lrange(key, start, start + CHUNK - 1))
      if (hasJid(raw, jid)) found.push({ ...place, key, raw });
  }
  return found;
}

/** Where `jid` is in the sorted sets (only those in `sets`, searched in that order). */
export async function findInSets(
  session: AdminContext,
  jid: string,
  sets: JobSet[] = ['schedule', 'retry', 'dead'],
): Promise<Found[]> {
  const known = await indexed(session, jid);
  if (known) return (sets as string[]).includes(known.where) ? [known] : [];
  const found: Found[] = [];
  for (const set of sets)
    for (const { key, queue } of await setKeys(session, set))
      found.push(...(await inSet(session, key, queue, set, jid)));
  return found;
}

/** Where `jid` waits in `queue`: through the job index, else by reading the queue's list. */
export async function findInQueue(session: AdminContext, queue: string, jid: string): Promise<Found[]> {
  const known = await indexed(session, jid);
  if (known) return known.where === 'queue' && known.queue === queue ? [known] : [];
  const found = await inList(session, session.keys.queue(queue), jid, { where: 'queue', queue });
  return found.length > 0 ? found : inGroups(session, queue, jid);
}

/** `jid` waiting in fair queue `queue`'s groups, not yet indexed (a foreign producer pushed it). */
async function inGroups({ redis, keys }: AdminContext, queue: string, jid: string): Promise<Found[]> {
  const member = await findInGroups(redis, keys, queue, jid);
  if (member === undefined) return [];
  return [{ where: 'queue', queue, key: keys.fair(queue).jobs, raw: rawOfFairMember(member), member }];
}

/**
 * Every place `jid` is: its queue, the sets, or a node's backup list (running). The one lookup of
 * a job by jid (`nexq show`, the dashboard's job page).
 */
export async function findJob(session: AdminContext, jid: string): Promise<Found[]> {
  const known = await indexed(session, jid);
  if (known) return [known];
  const { redis, keys } = session;
  const found: Found[] = [];
  for (const queue of await knownQueues(redis, keys)) found.push(...(await findInQueue(session, queue, jid)));
  found.push(...(await findInSets(session, jid)));
  for (const { nodeId, queue } of await allBackups(redis, keys)) {
    found.push(...(await inList(session, keys.backup(nodeId, queue), jid, { where: 'running', node: nodeId, queue })));
  }
  return found;
}
