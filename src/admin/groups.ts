// `nexq groups <queue>`, `Nexq#groups` and the dashboard's groups page: a fair queue's groups
// (docs/fair-queues.md), each with its jobs waiting in the groups, its jobs running on all nodes (its
// groupConcurrency hash), its recent throughput (the jobs the fetch took of it in the last 15
// minutes, counted per minute by the fetch: lua/_fair.lua's nexq_count_starts) and whether a limit
// holds it back now, where the limits are known (src/admin/group-limits.ts). The waiting counts are
// one HGETALL; the running hashes are found by SCAN (an operator's look, not a loop's: every master
// in a cluster), so a group whose jobs all run is listed too, and the groups of this minute's and
// the last minute's start counts (two HKEYS), so one whose jobs start as soon as they come is
// listed while it is busy. Throughput and limits are read for the page asked only.
import type { GroupLimits } from '../../config/group-limits';
import { NexqError } from '../../config/nexq-error';
import type { ResolvedConfig } from '../../config/validate';
import { allMasters, type RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import { groupActivity, pauseFairGroup } from '../redis/fair-queue';
import { rateSpec } from '../redis/fetch-script';
import { readLiveInfos, type LiveInfos } from '../redis/live-infos';
import { servingOf } from '../redis/live-serving';
import { knownGroupLimits } from './group-limits';

/** The minutes a group's recent throughput (`GroupInfo.started15m`) adds up. */
export const RECENT_MINUTES = 15;

export interface GroupInfo {
  /** The group's name ('' the default group). */
  group: string;
  /** Its jobs waiting in the queue's groups (jobs still in the queue's list, the inbox, are not yet counted). */
  waiting: number;
  /** Its jobs running on all nodes, as its groupConcurrency counts them (0 without that limit). */
  running: number;
  /** Paused (pauseGroup): no node starts its jobs until it is resumed. */
  paused: boolean;
  /**
   * Its jobs the fetch took (started, or prefetched) on all nodes in the last 15 minutes: the
   * current minute by Redis' clock and the 14 before it.
   */
  started15m: number;
  /**
   * The limit that holds it back now, as far as the limits are known (src/admin/group-limits.ts):
   * 'concurrency' (running at its groupConcurrency), 'rate' (no room left in its groupRateLimit),
   * else null.
   */
  limited: 'concurrency' | 'rate' | null;
}

export interface GroupsPage {
  /** Groups listed in all: with jobs waiting or running, paused, or with jobs started this minute or the last. */
  total: number;
  /** Those from `offset`, at most `limit`, most waiting first. */
  groups: GroupInfo[];
}

type Ctx = { redis: RedisClient; keys: Keys; config: Pick<ResolvedConfig, 'queues'> };

/** A group pause or resume asked of a queue that is not fair: its groups take no turns to hold. */
export class NotFairQueueError extends NexqError {
  static override readonly code = 'QUEUE_NOT_FAIR';
  override readonly name = 'NotFairQueueError';
}

/**
 * Whether `queue` is fair as far as this process can tell, with the limits per group it is served
 * with: served fair here, or by live nodes that say their limits (a dashboard mounted in a producer,
 * the CLI), or not but with groups in Redis (limits unknown). `infos`: the live process entries,
 * when the caller read them already (readLiveInfos) for another answer of the same request.
 */
export async function fairState(
  ctx: Ctx,
  queue: string,
  infos?: LiveInfos,
): Promise<{ fair: boolean; limits?: GroupLimits }> {
  const limits = await knownGroupLimits(ctx, queue, infos);
  if (limits) return { fair: true, limits };
  const fair = ctx.keys.fair(queue);
  // The keys share the queue's slot (keys.ts), so one EXISTS reads them in a cluster too.
  return { fair: (await ctx.redis.exists(fair.groups, fair.ring, fair.paused, fair.jobs)) > 0 };
}

/**
 * Pauses (or resumes) `group` of fair queue `queue` on every node: its jobs keep their place and no
 * node starts one until it is resumed (lua/fair-pause.lua). False when it already was so. The
 * default group is '' here. A queue that live processes serve, none of them fair, and that has no
 * groups (fairState) is refused with NotFairQueueError: it runs its jobs oldest first whatever their
 * group, so the pause would hold nothing. One no live process serves may be paused ahead: the
 * pause holds once nodes serve it fair. Both answers come from one read of the live process
 * entries.
 */
export async function pauseGroup(ctx: Ctx, queue: string, group: string, pause = true): Promise<boolean> {
  const live = await readLiveInfos(ctx.redis, ctx.keys);
  const { fair } = await fairState(ctx, queue, live);
  if (!fair && servingOf(live).has(queue))
    throw new NotFairQueueError(
      `queue ${JSON.stringify(queue)} is not a fair queue (the nodes serving it do not serve it fair: true, and it has ` +
        `no groups): its jobs run oldest first whatever their group, so a group cannot be ${pause ? 'paused' : 'resumed'}`,
    );
  return pauseFairGroup(ctx.redis, ctx.keys, queue, group, pause);
}

/**
 * The groups of `queue` with jobs waiting or running, paused, or with jobs started this minute or
 * the last, most waiting first.
 */
export async function groupsOf(ctx: Ctx, queue: string): Promise<GroupInfo[]> {
  return (await groupsPage(ctx, queue)).groups;
}

/**
 * One page of `queue`'s groups, most waiting first (then most running, then by name): all of them
 * without `limit`. `limits` defaults to the context's config for the queue, else to what the live
 * nodes serving it fair say (knownGroupLimits: the strictest where they disagree); with neither,
 * `limited` is null throughout.
 *
 * `everyRunning` (the default: `nexq groups`, `nexq.groups`) finds the groups with jobs running by
 * a SCAN of the keyspace, on every master, for their running hashes, so a group whose long jobs
 * all run is listed too: an operator's look, its cost grows with the keys of the database. Without
 * it (the dashboard, read at every page view) nothing scans: the groups listed are those with jobs
 * waiting, paused, or started in the last RECENT_MINUTES, ordered by waiting then name, and the
 * running counts are read for the page's groups only.
 */
export async function groupsPage(
  ctx: Ctx,
  queue: string,
  {
    offset = 0,
    limit,
    limits,
    everyRunning = true,
  }: { offset?: number; limit?: number; limits?: GroupLimits; everyRunning?: boolean } = {},
): Promise<GroupsPage> {
  const all = await groupCounts(ctx, queue, everyRunning);
  const page = all.slice(offset, limit === undefined ? undefined : offset + limit);
  if (!everyRunning) await readRunning(ctx, queue, page);
  const known = limits ?? (await knownGroupLimits(ctx, queue)) ?? {};
  const activity = await groupActivity(
    ctx.redis,
    ctx.keys,
    queue,
    page.map((g) => g.group),
    RECENT_MINUTES,
    rateSpec(known.groupRateLimit),
  );
  const groups = page.map((g, k): GroupInfo => {
    const atConcurrency = known.groupConcurrency !== undefined && g.running >= known.groupConcurrency;
    const limited = atConcurrency ? 'concurrency' : activity[k].rateFull ? 'rate' : null;
    return { ...g, started15m: activity[k].started, limited };
  });
  return { total: all.length, groups };
}

type Counts = Pick<GroupInfo, 'group' | 'waiting' | 'running' | 'paused'> & { recent?: boolean };

const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The running counts of `groups` (one HVALS each, pipelined). */
async function readRunning({ redis, keys }: Ctx, queue: string, groups: Counts[]): Promise<void> {
  if (groups.length === 0) return;
  const pipeline = redis.pipeline();
  for (const g of groups) pipeline.hvals(keys.groupRunning(queue, g.group));
  const replies = (await pipeline.exec()) ?? [];
  groups.forEach((g, i) => {
    const [err, counts] = replies[i] ?? [];
    if (!err && Array.isArray(counts))
      g.running = counts.reduce((sum: number, n) => sum + Math.max(0, Number(n) || 0), 0);
  });
}

/** Every group of `queue` listed (GroupsPage.total), sorted. */
async function groupCounts({ redis, keys }: Ctx, queue: string, everyRunning: boolean): Promise<Counts[]> {
  const fair = keys.fair(queue);
  const groups = new Map<string, Counts>();
  const info = (group: string): Counts => {
    const known = groups.get(group);
    if (known) return known;
    const added = { group, waiting: 0, running: 0, paused: false };
    groups.set(group, added);
    return added;
  };
  for (const [group, count] of Object.entries(await redis.hgetall(fair.groups)))
    info(group).waiting = Number(count) || 0;
  for (const group of await redis.smembers(fair.paused)) info(group).paused = true;
  // The minutes by Redis' clock, as the fetch counts them; a count hash of the wrong type lists nothing.
  const minute = Math.floor((await redis.time())[0] / 60);
  const minutes = everyRunning ? 2 : RECENT_MINUTES;
  for (let m = minute - minutes + 1; m <= minute; m++)
    for (const group of await redis.hkeys(`${fair.starts}:${m}`).catch(() => [])) info(group).recent = true;
  const prefix = `${fair.running}:`;
  for (const server of everyRunning ? allMasters(redis) : []) {
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
    .filter((g) => g.waiting > 0 || g.running > 0 || g.paused || g.recent)
    .map(({ group, waiting, running, paused }) => ({ group, waiting, running, paused }))
    .sort((a, b) => b.waiting - a.waiting || b.running - a.running || a.group.localeCompare(b.group));
}
