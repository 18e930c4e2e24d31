// Helpers of the web dashboard's tests: a node serving the dashboard, an app's server with one
// mounted, HTTP calls to them, and job entries written straight into the schedule, retry and dead
// sets.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NexqDashboard } from '../../src/web/mount';
import type { Nexq, NexqStartOptions } from '../../src/nexq';
import type { NodeTest } from '../support/node';

/** Starts a node that serves the dashboard on a free port of 127.0.0.1; returns it and its URL. */
export async function startWebNode(t: NodeTest, options: NexqStartOptions = {}): Promise<{ nexq: Nexq; url: string }> {
  const nexq = await t.start({ web: { port: 0 }, ...options });
  return { nexq, url: nexq.node.web!.url };
}

/** Listens on a free port of 127.0.0.1; resolves to the base URL, e.g. http://127.0.0.1:40123 */
export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, dropping keep-alive connections (a client's would hold it open). */
export function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Call inside a `describe`: the app servers and mounted dashboards a test opens through it are
 * closed after the test, whatever happened.
 */
export function useAppServers(): {
  /** Keeps `dashboard` to close after the test; returns it. */
  keep(dashboard: NexqDashboard): NexqDashboard;
  /** Serves `app` on a free port until the test ends; resolves to the base URL. */
  serve(app: http.RequestListener): Promise<string>;
} {
  const servers: http.Server[] = [];
  const dashboards: NexqDashboard[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(closeServer));
    await Promise.all(dashboards.splice(0).map((d) => d.close()));
  });
  return {
    keep: (dashboard) => {
      dashboards.push(dashboard);
      return dashboard;
    },
    serve: (app) => {
      const server = http.createServer(app);
      servers.push(server);
      return listen(server);
    },
  };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Adds X-Nexq: 1, as the dashboard page does for every action. */
  action?: boolean;
  auth?: [string, string];
  headers?: Record<string, string>;
}

/** One HTTP request to the dashboard at `url`; resolves to status, headers and the body (JSON when it is). */
export async function call(
  url: string,
  path: string,
  options: CallOptions = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.action) headers['X-Nexq'] = '1';
  if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth.join(':')).toString('base64')}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(new URL(path, url), {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body, text };
}

/** A job payload in Sidekiq's format. */
export function payload(
  queue: string,
  className: string,
  args: unknown[],
  extra: Record<string, unknown> = {},
): { jid: string; raw: string } {
  const jid = randomUUID();
  const now = Date.now() / 1000;
  return {
    jid,
    raw: JSON.stringify({
      class: className,
      args,
      jid,
      queue,
      retry: true,
      created_at: now,
      enqueued_at: now,
      ...extra,
    }),
  };
}

/** Writes a job into the dead (or retry/schedule) set, as a node would after its last failure. */
export async function addToSet(
  t: NodeTest,
  set: 'schedule' | 'retry' | 'dead',
  queue: string,
  className: string,
  args: unknown[],
  score = Date.now() / 1000,
): Promise<string> {
  const failure =
    set === 'schedule'
      ? {}
      : { error_class: 'BoomError', error_message: 'boom', failed_at: Date.now() / 1000, retry_count: 3 };
  const { jid, raw } = payload(queue, className, args, failure);
  await t.redis.zadd(t.keys.jobSet(set, 'default'), String(score), raw);
  return jid;
}
