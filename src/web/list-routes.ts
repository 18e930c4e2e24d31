// The dashboard's filtered, cursor-paged listings (a queue's jobs, a set's entries; see
// src/admin/search.ts for why cursors) and the processes with their running jobs and trees.
import type { AdminContext } from '../admin/context';
import { readProcesses, readProcessTree, readRunningJobs } from '../admin/processes';
import { JobFilter, searchQueue, searchSet } from '../admin/search';
import { jobSetSize } from '../redis/known-queues';
import { waitingJobs } from '../redis/fair-queue';
import { readLiveInfos } from '../redis/live-infos';
import { Serving, servingOf, unservedReasons } from '../redis/live-serving';
import { ApiError, count, queueParam, Route, setParam } from './api-params';
import { fairState } from '../admin/groups';

const MAX_FILTER_CHARS = 200;

function filterOf(query: URLSearchParams): JobFilter {
  const filter: JobFilter = {};
  for (const name of ['class', 'text', 'jid'] as const) {
    const value = query.get(name)?.trim();
    if (!value) continue;
    if (value.length > MAX_FILTER_CHARS)
      throw new ApiError(400, `${name} must be at most ${MAX_FILTER_CHARS} characters`);
    filter[name] = value;
  }
  return filter;
}

function cursorOf(query: URLSearchParams): string | undefined {
  return query.get('cursor') || undefined;
}

async function processes(ctx: AdminContext) {
  const views = await readProcesses(ctx);
  return Promise.all(
    views.map(async (p) => {
      const [jobs, tree] = await Promise.all([readRunningJobs(ctx, p.identity), readProcessTree(ctx, p.identity)]);
      return { ...p, jobs, tree };
    }),
  );
}

/** What the live processes serve and whether `queue` is fair, from one read of their entries. */
async function servingAndFair(ctx: AdminContext, queue: string): Promise<{ serving: Serving; fair: boolean }> {
  const infos = await readLiveInfos(ctx.redis, ctx.keys);
  return { serving: servingOf(infos), fair: (await fairState(ctx, queue, infos)).fair };
}

export const LIST_ROUTES: Route[] = [
  {
    method: 'GET',
    path: /^\/queues\/([^/]+)$/,
    handler: async (ctx, [q], query) => {
      const queue = queueParam(ctx, q);
      const [size, page, { serving, fair }] = await Promise.all([
        waitingJobs(ctx.redis, ctx.keys, queue),
        searchQueue(ctx, queue, filterOf(query), count(query, 'limit', 50, 1000), cursorOf(query)),
        servingAndFair(ctx, queue),
      ]);
      // Why the jobs shown would not run now: no live node serves the queue, or has their class's handler.
      const classes = [...new Set(page.jobs.map((j) => j.class).filter((c): c is string => typeof c === 'string'))];
      const warnings = [
        ...new Set(page.jobs.length > 0 ? classes.flatMap((c) => unservedReasons(serving, queue, c)) : []),
      ];
      // `fair`: the page links to the queue's groups.
      return { queue, size, fair, ...page, warnings };
    },
  },
  {
    method: 'GET',
    path: /^\/sets\/([^/]+)$/,
    handler: async (ctx, [s], query) => {
      const set = setParam(s);
      let page;
      try {
        page = await searchSet(ctx, set, filterOf(query), count(query, 'limit', 50, 1000), cursorOf(query));
      } catch (err) {
        if (err instanceof TypeError) throw new ApiError(400, err.message);
        throw err;
      }
      const configured = ctx.config.queues.map((q) => q.name);
      return { set, size: await jobSetSize(ctx.redis, ctx.keys, set, configured), ...page };
    },
  },
  { method: 'GET', path: /^\/processes$/, handler: processes },
];
