// HTTP/1.1 requests written byte for byte on a TCP socket, for tests that send what fetch and
// http.request refuse or rewrite (`//`, bad escapes, raw non-ASCII, absolute targets, broken
// framing). One request per connection (`Connection: close`); the answer is read until the server
// closes, de-chunked when it came chunked.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method: string;
  /** The request target exactly as sent, e.g. `//` or `/api/queues/%zz`. */
  target: string;
  headers?: Record<string, string>;
  /** Sent as it is, with a Content-Length unless `headers` frames it. */
  body?: string | Buffer;
}

/** The bytes of `request`; header values and targets are written as latin1 (one byte per char). */
export function requestBytes(request: RawRequest, host: string): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = { Host: host, Connection: 'close', ...request.headers };
  const framed = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h));
  if (body && !framed) headers['Content-Length'] = String(body.length);
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n', at);
    if (end < 0) break;
    const size = parseInt(data.subarray(at, end).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses what the server sent; undefined when it closed without a status line. */
export function parseAnswer(data: Buffer): RawAnswer | undefined {
  // An interim answer (100 Continue) comes first: the real one follows it.
  if (/^HTTP\/1\.[01] 1\d\d /.test(data.subarray(0, 13).toString('latin1'))) {
    const end = data.indexOf('\r\n\r\n');
    if (end >= 0) return parseAnswer(data.subarray(end + 4));
  }
  const split = data.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, split).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = data.subarray(split + 4);
  const body = /chunked/i.test(headers['transfer-encoding'] ?? '') ? dechunk(raw) : raw;
  return { status: Number(match[1]), headers, body: body.toString('utf8') };
}

/**
 * Sends `bytes` to 127.0.0.1:`port` and resolves to the answer, or undefined when the server closed
 * the connection without one; rejects when nothing happened within `timeoutMs`. `halfClose` ends
 * our side once sent, so a server still waiting for a body sees it end.
 */
export function sendRaw(
  port: number,
  bytes: Buffer,
  timeoutMs = 15_000,
  halfClose = false,
): Promise<RawAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(bytes.subarray(0, 200).toString('latin1'))}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that closes first may reset the connection: what arrived before still counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    });
  });
}

/** `request` sent raw to 127.0.0.1:`port`. */
export function rawRequest(port: number, request: RawRequest, timeoutMs?: number): Promise<RawAnswer | undefined> {
  return sendRaw(port, requestBytes(request, `127.0.0.1:${port}`), timeoutMs);
}
