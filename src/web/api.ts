// The dashboard's JSON API: reads and actions on the node's Redis, all through src/admin (the same
// functions the CLI's admin commands use). GET reads; POST acts (server.ts enforces the CSRF header).
import { NexqError } from '../../config/nexq-error';
import { deleteAll, deleteJob, retryAll, retryJob } from '../admin/actions';
import { AdminContext, isJobSet, JobSet } from '../admin/context';
import { findJob } from '../admin/find';
import { backtraceOf, isoOf } from '../admin/job-view';
import { classMetrics, RETENTION_MINUTES } from '../admin/class-metrics';
import { jsonObject } from '../job/json-object';
import { queueJobs, setJobs } from '../admin/listing';
import { pausedQueues, pauseQueue, PAUSE_MODES, PauseMode, resumeQueue } from '../admin/pause';
import { readProcesses, readRunningJobs } from '../admin/processes';
import { queueInfo, readHistory, readStats } from '../admin/stats';
import { isQueueName } from '../../config/validate';
import { jobSetSize } from '../redis/known-queues';

export class ApiError extends NexqError {
  static override readonly code = 'API_REQUEST';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiResult {
  status?: number;
  body: unknown;
  allow?: string;
}

/** `body` is the request's parsed JSON, whatever the client sent. */
type Handler = (ctx: AdminContext, params: string[], query: URLSearchParams, body: unknown) => Promise<unknown>;

interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  handler: Handler;
}

const MAX_BULK = 1000;

function count(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max) throw new ApiError(400, `${name} must be a whole number up to ${max}`);
  return Number(text);
}

function queueParam(text: string): string {
  if (!isQueueName(text)) throw new ApiError(400, `queue name ${JSON.stringify(text)} is not valid`);
  return text;
}

function setParam(text: string): JobSet {
  if (!isJobSet(text)) throw new ApiError(404, `no set ${JSON.stringify(text)} (schedule, retry or dead)`);
  return text;
}

/** A member of a JSON body; undefined when the body is not an object. */
function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** `{ jids: [...] }` or `{ all: true }` from a bulk action's body. */
function selection(body: unknown): { all: true } | { jids: string[] } {
  if (bodyField(body, 'all') === true) return { all: true };
  const jids = bodyField(body, 'jids');
  if (
    !Array.isArray(jids) ||
    jids.length === 0 ||
    jids.length > MAX_BULK ||
    !jids.every((j) => typeof j === 'string' && j !== '')
  ) {
    throw new ApiError(400, `body must be { "jids": [1 to ${MAX_BULK} jids] } or { "all": true }`);
  }
  return { jids: [...new Set(jids as string[])] };
}

async function stats(ctx: AdminContext) {
  const [s, processes] = await Promise.all([readStats(ctx), readProcesses(ctx)]);
  return { ...s, busy: processes.reduce((sum, p) => sum + p.busy, 0), time: new Date().toISOString() };
}

async function queues(ctx: AdminContext) {
  const [infos, paused] = await Promise.all([queueInfo(ctx), pausedQueues(ctx)]);
  const rows = infos.map((q) => ({ ...q, paused: paused[q.queue] ?? null }));
  // A queue paused before anything was enqueued to it is listed too, so it can be resumed.
  for (const [queue, mode] of Object.entries(paused))
    if (!infos.some((q) => q.queue === queue)) rows.push({ queue, size: 0, latency: 0, paused: mode });
  return rows.sort((a, b) => a.queue.localeCompare(b.queue));
}

async function processes(ctx: AdminContext) {
  const views = await readProcesses(ctx);
  return Promise.all(views.map(async (p) => ({ ...p, jobs: await readRunningJobs(ctx, p.identity) })));
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
      job: jsonObject(f.raw) ?? null,
      backtrace: backtraceOf(f.raw),
      raw: f.raw,
    })),
  };
}

const ROUTES: Route[] = [
  { method: 'GET', path: /^\/stats$/, handler: stats },
  { method: 'GET', path: /^\/history$/, handler: (ctx, _, q) => readHistory(ctx, count(q, 'days', 30, 365)) },
  { method: 'GET', path: /^\/queues$/, handler: queues },
  {
    method: 'GET',
    path: /^\/queues\/([^/]+)$/,
    handler: async (ctx, [q], query) => {
      const queue = queueParam(q);
      const [size, jobs] = await Promise.all([
        ctx.redis.llen(ctx.keys.queue(queue)),
        queueJobs(ctx, queue, count(query, 'limit', 50, 1000), count(query, 'offset', 0, 1e9)),
      ]);
      return { queue, size, jobs };
    },
  },
  { method: 'POST', path: /^\/queues\/([^/]+)\/pause$/, handler: pause },
  {
    method: 'POST',
    path: /^\/queues\/([^/]+)\/resume$/,
    handler: async (ctx, [q]) => (await resumeQueue(ctx, queueParam(q)), { queue: q, paused: null }),
  },
  { method: 'GET', path: /^\/processes$/, handler: processes },
  {
    method: 'GET',
    path: /^\/sets\/([^/]+)$/,
    handler: async (ctx, [s], query) => {
      const set = setParam(s);
      const [size, jobs] = await Promise.all([
        jobSetSize(
          ctx.redis,
          ctx.keys,
          set,
          ctx.config.queues.map((q) => q.name),
        ),
        setJobs(ctx, set, count(query, 'limit', 50, 1000), count(query, 'offset', 0, 1e9)),
      ]);
      return { set, size, jobs };
    },
  },
  { method: 'POST', path: /^\/sets\/([^/]+)\/retry$/, handler: bulk('retry') },
  { method: 'POST', path: /^\/sets\/([^/]+)\/delete$/, handler: bulk('delete') },
  { method: 'GET', path: /^\/jobs\/([^/]+)$/, handler: job },
  {
    method: 'GET',
    path: /^\/metrics$/,
    handler: (ctx, _, q) => classMetrics(ctx, count(q, 'minutes', 60, RETENTION_MINUTES)),
  },
];

async function pause(ctx: AdminContext, [q]: string[], _: URLSearchParams, body: unknown) {
  const queue = queueParam(q);
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
  const matching = ROUTES.filter((r) => r.path.test(path));
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
