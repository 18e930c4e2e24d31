// The web dashboard's HTTP server, on Node's own `http`: basic auth when configured, the page's
// static assets (all served from here, none from a CDN), the JSON API (api.ts) and, when given a
// handler, GET /metrics. Requests that change anything are POST only and must carry `X-Nexq: 1`,
// a header a cross-origin form or image cannot send, so other sites cannot act through a browser;
// origin.ts refuses foreign Origins and, on loopback, foreign Host names (DNS rebinding).
import { readdirSync, readFileSync } from 'node:fs';
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_WEB_HOST } from '../../config/validate';
import type { AdminContext } from '../admin/context';
import type { Logger } from '../logger';
import { ApiError, handleApi } from './api';
import { BasicAuth } from './auth';
import { hostAllowed, originAllowed } from './origin';

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface WebServerOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Basic auth when both are given. */
  username?: string;
  password?: string;
  /** The node whose Redis the dashboard reads and acts on. */
  ctx: AdminContext;
  logger?: Logger;
  /** Answers GET /metrics (e.g. Prometheus); without one, /metrics is 404. */
  metricsHandler?: MetricsHandler;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const ASSETS_DIR = path.join(__dirname, 'assets');
const MAX_BODY_BYTES = 1024 * 1024;

/** Headers on every response: no framing, no sniffing, scripts and styles from this server only. */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

interface Asset {
  type: string;
  body: Buffer;
}

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(ASSETS_DIR)) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (type) assets.set(`/${name}`, { type, body: readFileSync(path.join(ASSETS_DIR, name)) });
  }
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return assets;
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), headers);
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
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

export class WebServer {
  private constructor(
    private readonly server: http.Server,
    readonly host: string,
    readonly port: number,
  ) {}

  /** Listens; resolves once the port is bound (rejects when it cannot be). */
  static async start(options: WebServerOptions): Promise<WebServer> {
    const host = options.host ?? DEFAULT_WEB_HOST;
    const auth =
      options.username !== undefined && options.password !== undefined
        ? new BasicAuth({ username: options.username, password: options.password })
        : undefined;
    const assets = loadAssets();
    const server = http.createServer((req, res) => {
      route(req, res).catch((err: unknown) => {
        const status = err instanceof ApiError ? err.status : 500;
        if (status === 500)
          options.logger?.error(`web: ${req.method} ${req.url?.split('?')[0]} failed: ${(err as Error).message}`, {
            actor: 'web',
          });
        if (!res.headersSent) sendJson(res, status, { error: (err as Error).message });
        else res.destroy();
      });
    });

    async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (!hostAllowed(host, req)) {
        sendJson(res, 403, { error: 'this dashboard answers to a loopback Host only (127.0.0.1 or localhost)' });
        return;
      }
      if (auth && !auth.allows(req)) {
        sendJson(res, 401, { error: 'authentication required' }, { 'WWW-Authenticate': BasicAuth.challenge });
        return;
      }
      const url = new URL(req.url ?? '/', 'http://dashboard');
      const method = req.method ?? 'GET';
      if (url.pathname === '/metrics') {
        if (!options.metricsHandler) {
          sendJson(res, 404, { error: 'no metrics here' });
          return;
        }
        if (method !== 'GET') {
          sendJson(res, 405, { error: 'GET only' }, { Allow: 'GET' });
          return;
        }
        await options.metricsHandler(req, res);
        return;
      }
      if (url.pathname.startsWith('/api/')) {
        if (method !== 'GET' && method !== 'POST') {
          sendJson(res, 405, { error: 'GET or POST only' }, { Allow: 'GET, POST' });
          return;
        }
        if (method === 'POST' && (req.headers['x-nexq'] !== '1' || !originAllowed(req))) {
          sendJson(res, 403, {
            error: 'actions need the X-Nexq: 1 header and no foreign Origin (the dashboard page sends them)',
          });
          return;
        }
        const body = method === 'POST' ? await readJsonBody(req) : undefined;
        const result = await handleApi(options.ctx, method, url.pathname.slice('/api'.length), url.searchParams, body);
        sendJson(res, result.status ?? 200, result.body, result.allow ? { Allow: result.allow } : {});
        return;
      }
      const asset = assets.get(url.pathname);
      if (!asset) {
        sendJson(res, 404, { error: 'not found' });
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') {
        sendJson(res, 405, { error: 'GET only' }, { Allow: 'GET, HEAD' });
        return;
      }
      send(res, 200, asset.type, method === 'HEAD' ? '' : asset.body);
    }

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const web = new WebServer(server, host, (server.address() as AddressInfo).port);
    options.logger?.info(`web dashboard on ${web.url}${auth ? ' (basic auth)' : ''}`, { actor: 'web' });
    return web;
  }

  /** Where the dashboard answers, e.g. http://127.0.0.1:8080/ */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}/`;
  }

  /** The address the socket is bound to, as the operating system reports it. */
  get boundAddress(): string {
    return (this.server.address() as AddressInfo).address;
  }

  /** Stops listening and drops open connections (a browser's keep-alive would hold the port). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
