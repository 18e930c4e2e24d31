// The limits per group (`groupConcurrency`, `groupRateLimit`) by which `nexq groups` and
// `Nexq#groups` say which group a limit holds back, for a process that may not serve the queue (the
// CLI has no queues option): its own config's when it serves the queue fair, else those the live
// nexq nodes serving it fair carry in their process entries (`info.fair`, src/actors/heartbeat.ts).
// Where live nodes disagree (a change of the limits rolling out) the strictest limit of each kind
// counts: the lowest groupConcurrency, the groupRateLimit with the fewest starts per second.
import { GroupLimits, groupLimitsOf } from '../../config/group-limits';
import { checkRateLimit, type RateLimit } from '../../config/rate-limit';
import type { ResolvedConfig } from '../../config/validate';
import type { RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import { readLiveInfos, type LiveInfos } from '../redis/live-infos';

type Ctx = { redis: RedisClient; keys: Keys; config: Pick<ResolvedConfig, 'queues'> };

/**
 * The limits per group `queue` is held to, as far as this process can tell: its config's when it
 * serves the queue fair, else the live nodes' (liveGroupLimits), from `infos` when the live process
 * entries were read already (readLiveInfos), else read here only if the config does not say;
 * undefined when neither says.
 */
export async function knownGroupLimits(ctx: Ctx, queue: string, infos?: LiveInfos): Promise<GroupLimits | undefined> {
  const own = groupLimitsOf(ctx.config, queue);
  if (own) return own;
  return infos ? groupLimitsIn(infos, queue) : liveGroupLimits(ctx, queue);
}

/** The limits per group of `queue` as the live nexq nodes say (groupLimitsIn), reading their entries. */
export async function liveGroupLimits(
  ctx: Pick<Ctx, 'redis' | 'keys'>,
  queue: string,
): Promise<GroupLimits | undefined> {
  return groupLimitsIn(await readLiveInfos(ctx.redis, ctx.keys), queue);
}

/**
 * The limits per group of `queue` as the live nexq nodes that serve it fair say in their process
 * entries' `infos`, the strictest of each kind where they disagree (a group is then shown held back
 * when one of them would start none of its jobs, though one with a looser limit still might);
 * undefined when no live node serves it fair (Sidekiq and Exq processes, and older nexq nodes, do
 * not say).
 */
export function groupLimitsIn(infos: LiveInfos, queue: string): GroupLimits | undefined {
  const said = infos.flatMap((info) => limitsIn(info, queue) ?? []);
  return said.length === 0 ? undefined : strictest(said);
}

/** The limits of `queue` in a process entry's `info`, if it serves the queue fair. */
function limitsIn(info: Record<string, unknown>, queue: string): GroupLimits | undefined {
  const fair = info.fair;
  if (typeof fair !== 'object' || fair === null || !Object.hasOwn(fair, queue)) return undefined;
  const entry = (fair as Record<string, unknown>)[queue];
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { groupConcurrency, groupRateLimit } = entry as Record<string, unknown>;
  const concurrency =
    typeof groupConcurrency === 'number' && Number.isInteger(groupConcurrency) && groupConcurrency >= 1
      ? groupConcurrency
      : undefined;
  return {
    ...(concurrency === undefined ? {} : { groupConcurrency: concurrency }),
    ...(groupRateLimit === undefined ? {} : rateOf(groupRateLimit)),
  };
}

/** `value` as a groupRateLimit, or nothing when it is not one (written by another version). */
function rateOf(value: unknown): { groupRateLimit?: RateLimit } {
  try {
    return { groupRateLimit: checkRateLimit(value, 'groupRateLimit') };
  } catch {
    return {};
  }
}

/** Starts per second a rate allows on average; of two alike, the smaller burst (none) is stricter. */
const stricterRate = (a: RateLimit, b: RateLimit) =>
  a.limit / a.per - b.limit / b.per || Number(a.burst ?? 0) - Number(b.burst ?? 0);

/** The strictest limit of each kind in `all`: the lowest groupConcurrency, the slowest groupRateLimit. */
export function strictest(all: GroupLimits[]): GroupLimits {
  const concurrencies = all.flatMap((l) => (l.groupConcurrency === undefined ? [] : [l.groupConcurrency]));
  const rates = all.flatMap((l) => (l.groupRateLimit === undefined ? [] : [l.groupRateLimit]));
  return {
    ...(concurrencies.length === 0 ? {} : { groupConcurrency: Math.min(...concurrencies) }),
    ...(rates.length === 0 ? {} : { groupRateLimit: rates.sort(stricterRate)[0] }),
  };
}
