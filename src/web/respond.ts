// How the dashboard answers: the security headers on every response, JSON and asset bodies, the
// request body of an action, read with a size cap, and a request that failed: a 4xx says what was
// wrong with it, a 500 says nothing of nexq's insides (no stack, no Redis error, no script sha),
// whose detail goes to the log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorFields, Logger } from '../runtime/logger';
import { ApiError } from './api-params';

const MAX_BODY_BYTES = 1024 * 1024;

/** Headers on every response: no framing, no sniffing, scripts and styles from this server only. */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), headers);
}

/** The request's JSON body; one a framework's body parser already read (express.json()) as it left it. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const parsed = (req as { body?: unknown }).body;
  if (req.readableEnded && typeof parsed === 'object' && parsed !== null) return parsed;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw new ApiError(413, 'request body too large');
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, 'the request body could not be read'); // the client went away mid-body
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'request body must be JSON');
  }
}

/** What a 500 says: the log has the rest. */
export const INTERNAL_ERROR = 'internal error; the server log has the details';

/**
 * Answers a request that failed with `err`: an ApiError with its status and message, anything else
 * with a plain 500 and the error logged with its stack. Once the answer has begun, the connection is
 * cut instead (a half-sent body must not look complete).
 */
export function sendFailure(res: ServerResponse, err: unknown, what: string, logger: Logger | undefined): void {
  const status = err instanceof ApiError ? err.status : 500;
  if (status >= 500) {
    const error = errorFields(err);
    logger?.error(`web: ${what} failed: ${error.message}`, { actor: 'web', error });
  }
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: status >= 500 ? INTERNAL_ERROR : (err as ApiError).message });
}
