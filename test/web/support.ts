// Helpers of the web dashboard's tests: a node serving the dashboard, HTTP calls to it, and job
// entries written straight into the schedule, retry and dead sets.
import { randomUUID } from 'node:crypto';
import type { Nexq, NexqStartOptions } from '../../src/nexq';
import type { NodeTest } from '../support/node';

/** Starts a node that serves the dashboard on a free port of 127.0.0.1; returns it and its URL. */
export async function startWebNode(t: NodeTest, options: NexqStartOptions = {}): Promise<{ nexq: Nexq; url: string }> {
  const nexq = await t.start({ web: { port: 0 }, ...options });
  return { nexq, url: nexq.node.web!.url };
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
