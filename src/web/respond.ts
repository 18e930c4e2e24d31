// How the dashboard answers: the security headers on every response, JSON and asset bodies, and the
// request body of an action, read with a size cap.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api';

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
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'request body must be JSON');
  }
}
