// The dashboard as one request handler on Node's `http` types: the page's static assets, the JSON
// API (api.ts) and, when given a handler, GET /metrics. The standalone server (server.ts) and the
// handler users mount in their own app (mount.ts) both answer through it. Requests that change
// anything are POST only and must carry `X-Nexq: 1`, a header a cross-origin form or image cannot
// send, and no foreign Origin (origin.ts), so other sites cannot act through a browser.
//
// Mounted under a prefix, the page must be loaded as `<prefix>/` (with the slash): its assets and API
// calls are relative URLs, so a request for `<prefix>` is redirected there.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminContext } from '../admin/context';
import type { Logger } from '../runtime/logger';
import { handleApi } from './api';
import { dashboardAssets } from './assets';
import { originAllowed } from './origin';
import { readJsonBody, send, sendFailure, sendJson } from './respond';
import { requestUrl } from './request-url';

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface DashboardOptions {
  /** The Redis, keys and config the dashboard reads and acts on. */
  ctx: AdminContext;
  logger?: Logger;
  /** Answers GET /metrics (e.g. Prometheus); without one, /metrics is 404. */
  metricsHandler?: MetricsHandler;
}

/**
 * Answers one request. `mountPath` (e.g. `/jobs`) is the prefix still in `req.url` (Node's `http`,
 * Fastify); leave it out where the framework strips it (Express, Connect). Resolves false, having
 * answered nothing, for a URL outside `mountPath`.
 */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse, mountPath?: string) => Promise<boolean>;

/** `/jobs/` and `jobs` become `/jobs`; `/` and '' become ''. */
export function normalizeMountPath(mountPath: string): string {
  const trimmed = mountPath.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The path below the mount point, or where to redirect to reach the page, or undefined: not ours. */
function locate(
  req: IncomingMessage,
  url: URL,
  mountPath: string,
): { path: string } | { redirect: string } | undefined {
  if (mountPath !== '') {
    if (url.pathname === mountPath) return { redirect: `${mountPath}/${url.search}` };
    if (!url.pathname.startsWith(`${mountPath}/`)) return undefined;
    return { path: url.pathname.slice(mountPath.length) };
  }
  // Express and Connect strip their mount path from req.url and keep the whole one in originalUrl.
  const original = (req as { originalUrl?: unknown }).originalUrl;
  if (url.pathname === '/' && typeof original === 'string') {
    const whole = requestUrl(original);
    // One leading slash: `//host/...` would send the browser to another site.
    const at = whole.pathname.replace(/^\/+/, '/');
    if (!at.endsWith('/')) return { redirect: `${at}/${whole.search}` };
  }
  return { path: url.pathname };
}

export function createDashboard(options: DashboardOptions): DashboardHandler {
  const assets = dashboardAssets();

  async function route(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    if (path === '/metrics') {
      if (!options.metricsHandler) sendJson(res, 404, { error: 'no metrics here' });
      else if (method !== 'GET') sendJson(res, 405, { error: 'GET only' }, { Allow: 'GET' });
      else await options.metricsHandler(req, res);
    } else if (path.startsWith('/api/')) {
      await api(req, res, method, path.slice('/api'.length), url.searchParams);
    } else {
      const asset = assets.get(path);
      if (!asset) sendJson(res, 404, { error: 'not found' });
      else if (method !== 'GET' && method !== 'HEAD') sendJson(res, 405, { error: 'GET only' }, { Allow: 'GET, HEAD' });
      else send(res, 200, asset.type, method === 'HEAD' ? '' : asset.body);
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams) {
    if (method !== 'GET' && method !== 'POST') {
      sendJson(res, 405, { error: 'GET or POST only' }, { Allow: 'GET, POST' });
    } else if (method === 'POST' && (req.headers['x-nexq'] !== '1' || !originAllowed(req))) {
      sendJson(res, 403, {
        error: 'actions need the X-Nexq: 1 header and no foreign Origin (the dashboard page sends them)',
      });
    } else {
      const body = method === 'POST' ? await readJsonBody(req) : undefined;
      const result = await handleApi(options.ctx, method, path, query, body);
      sendJson(res, result.status ?? 200, result.body, result.allow ? { Allow: result.allow } : {});
    }
  }

  // Never rejects: whatever a request holds, it is answered here (the servers around it add no catch
  // of their own that a stack could leak through).
  return async (req, res, mountPath = '') => {
    const mount = normalizeMountPath(mountPath);
    let url: URL;
    try {
      url = requestUrl(req.url);
    } catch (err) {
      if (mount !== '') return false; // not a path, so not one under the mount point: the app's
      sendFailure(res, err, `${req.method ?? '?'} request`, options.logger);
      return true;
    }
    let path = url.pathname;
    try {
      const place = locate(req, url, mount);
      if (!place) return false;
      if ('redirect' in place) {
        send(res, 308, 'text/plain; charset=utf-8', `see ${place.redirect}\n`, { Location: place.redirect });
        return true;
      }
      path = place.path;
      await route(req, res, place.path, url);
    } catch (err) {
      sendFailure(res, err, `${req.method ?? '?'} ${path}`, options.logger);
    }
    return true;
  };
}
