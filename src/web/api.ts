// The dashboard's JSON API: reads and actions on the node's Redis, all through src/admin (the same
// functions the CLI's admin commands use). GET reads; POST acts (server.ts enforces the CSRF header).
import { deleteAll, deleteJob, retryAll, retryJob } from '../admin/actions';
import type { AdminContext } from '../admin/context';
import { findJob } from '../admin/find';
import { backtraceOf, isoOf } from '../admin/job-view';
import { openedFields } from '../admin/job-info';
import { classMetrics, RETENTION_MINUTES } from '../admin/class-metrics';
import { jsonObject } from '../job/json-object';
import { readServing, unservedQueue } from '../redis/live-serving';
import { ACTION_ROUTES } from './action-routes';
import { ApiError, ApiResult, bodyField, count, Handler, queueParam, Route, selection, setParam } from './api-params';
import { LIST_ROUTES } from './list-routes';
import { listSchedules } from './schedules-api';
import { BATCH_ROUTES } from './batches-api';
import { GROUP_ROUTES } from './groups-api';

export { ApiError };
export type { ApiResult };
import { pausedQueues, pauseQueue, PAUSE_MODES, PauseMode, resumeQueue } from '../admin/pause';
import { readProcesses } from '../admin/processes';
import { queueInfo, readHistory, readStats } from '../admin/stats';

async function stats(ctx: AdminContext) {
  const [s, processes] = await Promise.all([readStats(ctx), readProcesses(ctx)]);
  return { ...s, busy: processes.reduce((sum, p) => sum + p.busy, 0), time: new Date().toISOString() };
}

async function queues(ctx: AdminContext) {
  const [infos, paused, serving] = await Promise.all([
    queueInfo(ctx),
    pausedQueues(ctx),
    readServing(ctx.redis, ctx.keys),
  ]);
  // `unserved`: why no job of it would run now (no live node serves it), for a queue holding jobs.
  const unserved = (queue: string, size: number) => (size > 0 ? (unservedQueue(serving, queue) ?? null) : null);
  const rows = infos.map((q) => ({ ...q, paused: paused[q.queue] ?? null, unserved: unserved(q.queue, q.size) }));
  // A queue paused before anything was enqueued to it is listed too, so it can be resumed.
  for (const [queue, mode] of Object.entries(paused))
    if (!infos.some((q) => q.queue === queue)) rows.push({ queue, size: 0, latency: 0, paused: mode, unserved: null });
  return rows.sort((a, b) => a.queue.localeCompare(b.queue));
}

async function job(ctx: AdminContext, [jid]: string[]) {
  const found = await findJob(ctx, jid);
  if (found.length === 0) throw new ApiError(404, `no job ${jid} found (it may have finished)`);
  return {
    jid,
    found: found.map((f) => ({
      where: f.where,
      queue: f.queue ?? null,
      node: f.node ?? null,
      at: isoOf(f.score),
      key: f.key,
      job: openedFields(jsonObject(f.raw), ctx.encryption?.ring) ?? null,
      backtrace: backtraceOf(f.raw),
      raw: f.raw,
    })),
  };
}

/** Every route of the API, below `/api` (exported for the tests that fuzz each one). */
export const API_ROUTES: readonly Route[] = [
  ...LIST_ROUTES,
  ...ACTION_ROUTES,
  ...BATCH_ROUTES,
  ...GROUP_ROUTES,
  { method: 'GET', path: /^\/stats$/, handler: stats },
  { method: 'GET', path: /^\/history$/, handler: (ctx, _, q) => readHistory(ctx, count(q, 'days', 30, 365)) },
  { method: 'GET', path: /^\/queues$/, handler: queues },
  { method: 'POST', path: /^\/queues\/([^/]+)\/pause$/, handler: pause },
  {
    method: 'POST',
    path: /^\/queues\/([^/]+)\/resume$/,
    handler: async (ctx, [q]) => (await resumeQueue(ctx, queueParam(ctx, q)), { queue: q, paused: null }),
  },
  { method: 'POST', path: /^\/sets\/([^/]+)\/retry$/, handler: bulk('retry') },
  { method: 'POST', path: /^\/sets\/([^/]+)\/delete$/, handler: bulk('delete') },
  { method: 'GET', path: /^\/jobs\/([^/]+)$/, handler: job },
  {
    method: 'GET',
    path: /^\/metrics$/,
    handler: (ctx, _, q) => classMetrics(ctx, count(q, 'minutes', 60, RETENTION_MINUTES)),
  },
  { method: 'GET', path: /^\/schedules$/, handler: listSchedules },
];

async function pause(ctx: AdminContext, [q]: string[], _: URLSearchParams, body: unknown) {
  const queue = queueParam(ctx, q);
  const mode = (bodyField(body, 'mode') ?? 'all') as PauseMode;
  if (!PAUSE_MODES.includes(mode)) throw new ApiError(400, 'mode must be in, out or all');
  await pauseQueue(ctx, queue, mode);
  return { queue, paused: mode };
}

/** Retry or delete the chosen entries of a set (`{ jids }`), or all of them (`{ all: true }`). */
function bulk(action: 'retry' | 'delete'): Handler {
  return async (ctx, [s], _, body) => {
    const set = setParam(s);
    const chosen = selection(body);
    if ('all' in chosen)
      return action === 'retry'
        ? { set, moved: await retryAll(ctx, set) }
        : { set, deleted: await deleteAll(ctx, set) };
    const results = [];
    for (const jid of chosen.jids)
      results.push(action === 'retry' ? await retryJob(ctx, jid, [set]) : await deleteJob(ctx, jid, [set]));
    return { set, results };
  };
}

/** Answers one API request; `path` is what follows /api. */
export async function handleApi(
  ctx: AdminContext,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): Promise<ApiResult> {
  const matching = API_ROUTES.filter((r) => r.path.test(path));
  if (matching.length === 0) throw new ApiError(404, `no API at ${path}`);
  const route = matching.find((r) => r.method === method);
  if (!route)
    return {
      status: 405,
      body: { error: `${matching.map((r) => r.method).join(', ')} only` },
      allow: matching.map((r) => r.method).join(', '),
    };
  let params: string[];
  try {
    params = (route.path.exec(path) ?? []) // it matches: `test` said so above
      .slice(1)
      .map((p) => decodeURIComponent(p));
  } catch {
    throw new ApiError(400, 'bad escape in the path');
  }
  return { body: await route.handler(ctx, params, query, body) };
}
