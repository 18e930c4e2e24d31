// The standalone web dashboard a node serves with the `web` option, on Node's own `http`: basic
// auth when configured and, bound to loopback, loopback Host names only (origin.ts: DNS
// rebinding); everything else is the dashboard's request handler (dashboard.ts), the one users
// mount in their own app too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_WEB_HOST } from '../../config/http-options';
import type { AdminContext } from '../admin/context';
import type { Logger } from '../runtime/logger';
import { BasicAuth } from './auth';
import { createDashboard, MetricsHandler } from './dashboard';
import { hostAllowed } from './origin';
import { sendFailure, sendJson } from './respond';

export type { MetricsHandler } from './dashboard';

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
    const dashboard = createDashboard(options);
    const server = http.createServer((req, res) => {
      if (!hostAllowed(host, req)) {
        sendJson(res, 403, { error: 'this dashboard answers to a loopback Host only (127.0.0.1 or localhost)' });
      } else if (auth && !auth.allows(req)) {
        sendJson(res, 401, { error: 'authentication required' }, { 'WWW-Authenticate': BasicAuth.challenge });
      } else {
        dashboard(req, res).catch((err: unknown) =>
          sendFailure(res, err, `${req.method ?? '?'} request`, options.logger),
        );
      }
    });

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Once listening, an error of the server itself (accept failing: EMFILE) must not be an
    // uncaught 'error' event, which would end the node's process.
    server.on('error', (err) => options.logger?.error(`web: ${err.message}`, { actor: 'web' }));
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
