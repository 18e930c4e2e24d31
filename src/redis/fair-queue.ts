// What readers outside the fetch need of a fair queue's keys (lua/_fair.lua): a fair queue's jobs
// wait in its list (the inbox) and, once a fetch moved them, in its groups' sorted set. Readers add
// both; a queue that is not fair has no sorted set, so adding it costs one ZCARD of nothing.
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { runScript } from './scripts';
import { jsonObject } from '../job/json-object';

/** The raw job a member of a fair queue's sorted set holds: `<group>\0<seq>\0<raw job>`. */
export function rawOfFairMember(member: string): string {
  const first = member.indexOf('\0');
  const second = first < 0 ? -1 : member.indexOf('\0', first + 1);
  return second < 0 ? member : member.slice(second + 1);
}

/** The group a member of a fair queue's sorted set belongs to ('' the default group). */
export function groupOfFairMember(member: string): string {
  const first = member.indexOf('\0');
  return first < 0 ? '' : member.slice(0, first);
}

/**
 * The group a fair queue's fetch files a job's `group` field under, as lua/_fair.lua's
 * nexq_group_of reads it: a string of 1 to 800 bytes without control characters, else the
 * default group ''. The slot a job takes in its group's limit is given back under the same name.
 */
export function fairGroupOf(group: unknown): string {
  // eslint-disable-next-line no-control-regex
  if (typeof group !== 'string' || group === '' || Buffer.byteLength(group) > 800 || /[\x00-\x1f\x7f]/.test(group))
    return '';
  return group;
}

/** Jobs waiting in `queue`: in its list and, for a fair queue, in its groups. */
export async function waitingJobs(redis: RedisClient, keys: Keys, queue: string): Promise<number> {
  const [inList, inGroups] = await Promise.all([redis.llen(keys.queue(queue)), redis.zcard(keys.fair(queue).jobs)]);
  return inList + inGroups;
}

/**
 * The member of fair queue `queue`'s groups that holds the job `jid` (ZSCAN, as an operator's
 * lookup does for the sets: not for a loop), or undefined.
 */
export async function findInGroups(
  redis: RedisClient,
  keys: Keys,
  queue: string,
  jid: string,
): Promise<string | undefined> {
  const key = keys.fair(queue).jobs;
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(
      key,
      cursor,
      'MATCH',
      `*${jid.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`,
      'COUNT',
      1000,
    );
    for (let i = 0; i < flat.length; i += 2) {
      const raw = rawOfFairMember(flat[i]);
      if (jsonObject(raw)?.jid === jid) return flat[i];
    }
    cursor = next;
  } while (cursor !== '0');
  return undefined;
}

/**
 * Pauses (`pause` true) or resumes one group of fair queue `queue` on every node (fair-pause.lua);
 * false when it already was so.
 */
export async function pauseFairGroup(
  client: RedisClient,
  keys: Keys,
  queue: string,
  group: string,
  pause: boolean,
): Promise<boolean> {
  const fair = keys.fair(queue);
  const keysOf = [fair.ring, fair.paused, fair.groups];
  return (await runScript(client, 'fair-pause', keysOf, [group, pause ? 'pause' : 'resume'])) === 1;
}

/** What lua/group-activity.lua reads of one group: jobs taken in the minutes asked, its rate out of room. */
export interface GroupActivity {
  started: number;
  rateFull: boolean;
}

/** Groups per group-activity call: their names are unpacked into one HMGET per minute. */
const ACTIVITY_CHUNK = 1000;

/**
 * The jobs of each of `groups` of fair queue `queue` the fetch took in the last `minutes` minutes
 * (the current one by Redis' clock and those before it), and, under `rateSpec` (its groupRateLimit
 * as the fetch takes it, '' none), whether its rate lets no job start now.
 */
export async function groupActivity(
  client: RedisClient,
  keys: Keys,
  queue: string,
  groups: string[],
  minutes: number,
  rateSpec: string,
): Promise<GroupActivity[]> {
  const fair = keys.fair(queue);
  const activity: GroupActivity[] = [];
  for (let first = 0; first < groups.length; first += ACTIVITY_CHUNK) {
    const chunk = groups.slice(first, first + ACTIVITY_CHUNK);
    const [started, full] = (await runScript(
      client,
      'group-activity',
      [fair.starts, fair.rate],
      [minutes, rateSpec, ...chunk],
    )) as [number[], number[]];
    chunk.forEach((_, k) => activity.push({ started: started[k] || 0, rateFull: full[k] === 1 }));
  }
  return activity;
}
