// Finding a job by jid for `show`, `retry` and `delete`. Redis has no index by jid, so this scans:
// ZSCAN of the schedule, retry and dead sets, LRANGE of every queue, SCAN for backup lists. Fine
// for an operator's command; not something to run in a loop against a large Redis.
import { parseEntry, Session } from './common';

export type Place = 'queue' | 'schedule' | 'retry' | 'dead' | 'running';

export interface Found {
  where: Place;
  /** The Redis key holding it. */
  key: string;
  /** The exact member / list element. */
  raw: string;
  /** The queue it waits in (queue and running). */
  queue?: string;
  /** The node whose backup list holds it (running). */
  node?: string;
  /** Its sorted-set score, epoch seconds (schedule, retry, dead). */
  score?: number;
}

const CHUNK = 1000;

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

function hasJid(raw: string, jid: string): boolean {
  return raw.includes(jid) && parseEntry(raw)?.jid === jid;
}

async function inSet({ redis }: Session, key: string, where: Place, jid: string): Promise<Found[]> {
  const found: Found[] = [];
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'MATCH', `*${globEscape(jid)}*`, 'COUNT', CHUNK);
    for (let i = 0; i < flat.length; i += 2) if (hasJid(flat[i], jid)) found.push({ where, key, raw: flat[i], score: Number(flat[i + 1]) });
    cursor = next;
  } while (cursor !== '0');
  return found;
}

async function inList({ redis }: Session, key: string, jid: string, place: Omit<Found, 'key' | 'raw'>): Promise<Found[]> {
  const found: Found[] = [];
  const length = await redis.llen(key);
  for (let start = 0; start < length; start += CHUNK) {
    for (const raw of await redis.lrange(key, start, start + CHUNK - 1)) if (hasJid(raw, jid)) found.push({ ...place, key, raw });
  }
  return found;
}

/** The sorted sets a job can sit in, in the order they are searched. */
export function setsOf(session: Session): Array<[Place, string]> {
  const { keys } = session;
  return [
    ['schedule', keys.schedule],
    ['retry', keys.retry],
    ['dead', keys.dead],
  ];
}

/** Where `jid` is in the sorted sets (only those in `places`). */
export async function findInSets(session: Session, jid: string, places: Place[] = ['schedule', 'retry', 'dead']): Promise<Found[]> {
  const found: Found[] = [];
  for (const [where, key] of setsOf(session)) if (places.includes(where)) found.push(...(await inSet(session, key, where, jid)));
  return found;
}

/** Every place `jid` is: its queue, the sets, or a node's backup list (running). */
export async function findEverywhere(session: Session, jid: string): Promise<Found[]> {
  const { redis, keys } = session;
  const found: Found[] = [];
  for (const queue of (await redis.smembers(keys.queues)).sort()) found.push(...(await inList(session, keys.queue(queue), jid, { where: 'queue', queue })));
  found.push(...(await findInSets(session, jid)));
  const prefix = keys.key('queue:backup::');
  let cursor = '0';
  do {
    const [next, backupKeys] = await redis.scan(cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', CHUNK);
    for (const key of backupKeys) {
      const match = /^(.*)::(.*)$/.exec(key.slice(prefix.length));
      if (match) found.push(...(await inList(session, key, jid, { where: 'running', node: match[1], queue: match[2] })));
    }
    cursor = next;
  } while (cursor !== '0');
  return found;
}
