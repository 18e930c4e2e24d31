// What the dashboard's API routes share: the error that carries an HTTP status, the route table's
// types, and the readers of path, query and body parameters.
import { NexqError } from '../../config/nexq-error';
import { isQueueName } from '../../config/queue-options';
import { AdminContext, isJobSet, JobSet } from '../admin/context';

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
export type Handler = (ctx: AdminContext, params: string[], query: URLSearchParams, body: unknown) => Promise<unknown>;

export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  handler: Handler;
}

export const MAX_BULK = 1000;

/** A count parameter, from 1 to `max` (0 would ask Redis for nothing, or in LRANGE's terms for all). */
export function count(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max)
    throw new ApiError(400, `${name} must be a whole number from 1 to ${max}`);
  return Number(text);
}

export function queueParam(ctx: AdminContext, text: string): string {
  if (!isQueueName(text)) throw new ApiError(400, `queue name ${JSON.stringify(text)} is not valid`);
  if (!ctx.keys.fits(text))
    throw new ApiError(
      400,
      `queue name ${JSON.stringify(text)} cannot be used in the per-queue key layout (no braces)`,
    );
  return text;
}

export function setParam(text: string): JobSet {
  if (!isJobSet(text)) throw new ApiError(404, `no set ${JSON.stringify(text)} (schedule, retry or dead)`);
  return text;
}

/** A member of a JSON body; undefined when the body is not an object. */
export function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** `{ jids: [...] }` or `{ all: true }` from a bulk action's body. */
export function selection(body: unknown): { all: true } | { jids: string[] } {
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
