// The standalone metrics endpoint of a node started with `metrics: { port, host? }`: GET /metrics
// on Node's http server, nothing else. A web dashboard can serve the same handler instead.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../runtime/logger';
import type { MetricsHandler } from './prometheus';

export const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface MetricsServer {
  /** Where it listens (the real port when 0 was asked for). */
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function serveMetrics(
  handler: MetricsHandler,
  port: number,
  host = DEFAULT_METRICS_HOST,
  logger?: Logger,
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found; metrics are at /metrics\n');
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('method not allowed\n');
    } else {
      // The node's handler answers its own failures (registryHandler); whatever else a handler
      // throws or rejects with still ends in a plain 500, never an uncaught error of the process.
      Promise.resolve()
        .then(() => handler(req, res))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end('metrics failed\n');
        });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`metrics: cannot listen on ${host}:${port} (${err.code ?? err.message})`)),
    );
    server.listen(port, host, () => resolve());
  });
  // Once listening, an error of the server itself (accept failing: EMFILE) must not be an uncaught
  // 'error' event, which would end the node's process.
  server.on('error', (err) => logger?.error(`metrics: ${err.message}`, { actor: 'metrics' }));
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
