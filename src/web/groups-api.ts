// The dashboard's groups page's API (docs/fair-queues.md): one page of a fair queue's groups, most
// waiting first, with their recent throughput and the limit holding each back (src/admin/groups.ts),
// and pause or resume one group. The group goes in the body, not the path: any name a job may carry
// (slashes, '..', unicode, '' for the default group) arrives as it is.
import type { AdminContext } from '../admin/context';
import type { GroupLimits } from '../../config/group-limits';
import { fairState, groupsPage, RECENT_MINUTES } from '../admin/groups';
import { groupProblem } from '../job/job';
import { pauseFairGroup } from '../redis/fair-queue';
import { ApiError, bodyField, count, queueParam, Route } from './api-params';

/** Groups per page at most: a queue may hold 100,000 groups, a page shows a few. */
export const MAX_GROUPS_PAGE = 500;
const MAX_OFFSET = 10_000_000;

function offsetOf(query: URLSearchParams): number {
  const text = query.get('offset');
  if (text === null) return 0;
  if (!/^\d+$/.test(text) || Number(text) > MAX_OFFSET)
    throw new ApiError(400, `offset must be a whole number from 0 to ${MAX_OFFSET}`);
  return Number(text);
}

/** The limits per group of fair queue `queue` where known; a queue fair nowhere is a 404. */
async function fairLimits(ctx: AdminContext, queue: string): Promise<GroupLimits | undefined> {
  const { fair, limits } = await fairState(ctx, queue);
  if (!fair)
    throw new ApiError(
      404,
      `queue ${queue} is not a fair queue: this node does not serve it fair, and it has no groups`,
    );
  return limits;
}

function groupOf(body: unknown): string {
  const group = bodyField(body, 'group');
  if (group === '') return group;
  const problem = groupProblem(group);
  if (problem) throw new ApiError(400, `body must be { "group": name } ('' the default group): ${problem}`);
  return group as string;
}

function pauseRoute(pause: boolean): Route['handler'] {
  return async (ctx, [q], _, body) => {
    const group = groupOf(body);
    const queue = queueParam(ctx, q);
    // A queue fair nowhere is a 404; one found fair needs no second look (pauseGroup's check).
    await fairLimits(ctx, queue);
    const changed = await pauseFairGroup(ctx.redis, ctx.keys, queue, group, pause);
    return { queue, group, paused: pause, changed };
  };
}

export const GROUP_ROUTES: Route[] = [
  {
    method: 'GET',
    path: /^\/queues\/([^/]+)\/groups$/,
    handler: async (ctx, [q], query) => {
      const limit = count(query, 'limit', 50, MAX_GROUPS_PAGE);
      const offset = offsetOf(query);
      const queue = queueParam(ctx, q);
      const limits = await fairLimits(ctx, queue);
      const page = await groupsPage(ctx, queue, { offset, limit, limits: limits ?? {}, everyRunning: false });
      return {
        queue,
        // null: neither this node nor a live node says it serves the queue fair: its limits are unknown.
        limits: limits
          ? { groupConcurrency: limits.groupConcurrency ?? null, groupRateLimit: limits.groupRateLimit ?? null }
          : null,
        recentMinutes: RECENT_MINUTES,
        offset,
        limit,
        ...page,
      };
    },
  },
  { method: 'POST', path: /^\/queues\/([^/]+)\/groups\/pause$/, handler: pauseRoute(true) },
  { method: 'POST', path: /^\/queues\/([^/]+)\/groups\/resume$/, handler: pauseRoute(false) },
];
