// `nexq groups <queue>` and `Nexq#groups`: a fair queue's groups (docs/fair-queues.md), each with
// its jobs waiting in the groups and its jobs running on all nodes (its groupConcurrency hash). The
// waiting counts are one HGETALL; the running hashes are found by SCAN (an operator's look, not a
// loop's: every master in a cluster), so a group whose jobs all run is listed too.
import { allMasters, type RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import { pauseFairGroup } from '../redis/fair-queue';

export interface GroupInfo {
  /** The group's name ('' the default group). */
  group: string;
  /** Its jobs waiting in the queue's groups (jobs still in the queue's list, the inbox, are not yet counted). */
  waiting: number;
  /** Its jobs running on all nodes, as its groupConcurrency counts them (0 without that limit). */
  running: number;
  /** Paused (pauseGroup): no node starts its jobs until it is resumed. */
  paused: boolean;
}

const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/**
 * Pauses (or resumes) `group` of fair queue `queue` on every node: its jobs keep their place and no
 * node starts one until it is resumed (lua/fair-pause.lua). False when it already was so. The
 * default group is '' here.
 */
export function pauseGroup(
  { redis, keys }: { redis: RedisClient; keys: Keys },
  queue: string,
  group: string,
  pause = true,
): Promise<boolean> {
  return pauseFairGroup(redis, keys, queue, group, pause);
}

/** The groups of `queue` with jobs waiting or running, most waiting first. */
export async function groupsOf(
  { redis, keys }: { redis: RedisClient; keys: Keys },
  queue: string,
): Promise<GroupInfo[]> {
  const fair = keys.fair(queue);
  const groups = new Map<string, GroupInfo>();
  const info = (group: string): GroupInfo => {
    const known = groups.get(group);
    if (known) return known;
    const added = { group, waiting: 0, running: 0, paused: false };
    groups.set(group, added);
    return added;
  };
  for (const [group, count] of Object.entries(await redis.hgetall(fair.groups)))
    info(group).waiting = Number(count) || 0;
  for (const group of await redis.smembers(fair.paused)) info(group).paused = true;
  const prefix = `${fair.running}:`;
  for (const server of allMasters(redis)) {
    let cursor = '0';
    do {
      const [next, names] = await server.scan(cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', 500);
      cursor = next;
      for (const name of names) {
        const counts = await server.hvals(name);
        info(name.slice(prefix.length)).running = counts.reduce((sum, n) => sum + Math.max(0, Number(n) || 0), 0);
      }
    } while (cursor !== '0');
  }
  return [...groups.values()]
    .filter((g) => g.waiting > 0 || g.running > 0 || g.paused)
    .sort((a, b) => b.waiting - a.waiting || b.running - a.running || a.group.localeCompare(b.group));
}
