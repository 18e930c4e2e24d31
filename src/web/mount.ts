// The dashboard for users' own servers: `app.use('/jobs', nexqDashboard({ redis, namespace }))` in
// Express or Connect, or a `(req, res, next?)` handler for Node's `http`, without starting a node.
// The app's own authentication sits in front (this handler has none); the CSRF rule of every
// action (dashboard.ts) holds as in the standalone server. fastify.ts wraps it for Fastify.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Cluster } from 'ioredis';
import type { KeyLayout, NexqConfig, NexqOptions } from '../../config/defaults';
import type { RedisTarget } from '../../config/redis-options';
import { resolveConfig } from '../../config/validate';
import { resolveKeyLayout } from '../../config/key-layout';
import { optionsOverEnv } from '../../config/load';
import type { AdminContext } from '../admin/context';
import type { Logger } from '../runtime/logger';
import { duplicateClient, RedisClient } from '../redis/client';
import { connectTarget } from '../redis/connection';
import { Keys } from '../redis/keys';
import { checkSlotsOn, defineScripts, ScriptedRedis } from '../redis/scripts';
import { Registry } from '../runtime';
import { clusterMetrics } from '../metrics/cluster-gauges';
import { createDashboard, DashboardHandler, MetricsHandler } from './dashboard';
import { sendFailure, sendJson } from './respond';

export interface DashboardMountOptions extends Pick<NexqConfig, 'namespace' | 'queues' | 'timestamps' | 'dialect'> {
  /**
   * A redis:// URL, ioredis options (as nexq's `redis` option), or an ioredis client to copy. Left out,
   * it comes from the environment as for `Nexq.start()` (REDIS_URL, NEXQ_REDIS_*), then 127.0.0.1:6379.
   */
  redis?: RedisTarget | RedisClient;
  /** Where options not given here are read from (REDIS_URL, NEXQ_*): `process.env` by default; `false` reads none. */
  environment?: NodeJS.ProcessEnv | false;
  keyLayout?: 'auto' | KeyLayout;
  /**
   * The prefix still in `req.url` where the dashboard is mounted, for Node's `http`. Leave it out
   * with Express or Connect, which strip their mount path themselves.
   */
  mountPath?: string;
  /** Where a request that failed with a server error is logged (nothing by default). */
  logger?: Logger;
  /**
   * true: GET <mount>/metrics serves the cluster-wide Prometheus gauges (queue sizes and latency,
   * set sizes, no `node` label) and `nexq_redis_up`: one scrape target for them across a fleet.
   */
  metrics?: boolean;
  /** Answers GET <mount>/metrics instead, e.g. a node's `metrics.handler`; 404 without either. */
  metricsHandler?: MetricsHandler;
}

/** A request handler with the shape of Node's, Express' and Connect's; `close` ends its Redis connection. */
export interface NexqDashboard {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** The dashboard's own answer: false (nothing sent) for a URL outside `mountPath`. */
  readonly serve: DashboardHandler;
  close(): Promise<void>;
}

function isClient(redis: RedisTarget | RedisClient | undefined): redis is RedisClient {
  return typeof redis === 'object' && typeof (redis as { duplicate?: unknown }).duplicate === 'function';
}

/** What the admin functions need of a node, made from a Redis client or target and a namespace. */
export function dashboardContext(options: DashboardMountOptions): AdminContext {
  const {
    redis: target,
    environment = process.env,
    mountPath: _m,
    logger: _l,
    metrics: _x,
    metricsHandler: _h,
    ...rest
  } = options;
  const given = isClient(target) ? target : undefined;
  const explicit: NexqConfig = { ...rest, ...(isClient(target) || target === undefined ? {} : { redis: target }) };
  const fields = environment === false ? explicit : optionsOverEnv(explicit, environment).config;
  const config = resolveConfig({ ...fields, mode: 'enqueuer' });
  if (given instanceof Cluster) {
    // A copied cluster client: the layout follows the cluster, as it would from a `redis.cluster` target.
    const asCluster = { ...config, keyLayout: fields.keyLayout ?? 'auto', redis: { cluster: [] } } as NexqOptions;
    config.keyLayout = resolveKeyLayout(
      asCluster,
      config.queues.map((q) => q.name),
    );
  }
  const redis: ScriptedRedis = given ? defineScripts(duplicateClient(given, {})) : connectTarget(config.redis);
  if (config.keyLayout === 'per-queue' && !(redis instanceof Cluster)) checkSlotsOn(redis);
  return { redis, keys: new Keys(config.namespace, config.keyLayout), config, registry: new Registry() };
}

/**
 * The dashboard as middleware: `app.use('/jobs', nexqDashboard({ redis, namespace }))`. It opens a
 * Redis connection of its own (a copy of a client given); `close()` ends it.
 */
export function nexqDashboard(options: DashboardMountOptions): NexqDashboard {
  const ctx = dashboardContext(options);
  const metricsHandler =
    options.metricsHandler ??
    (options.metrics
      ? clusterMetrics({
          redis: () => ctx.redis,
          keys: ctx.keys,
          queues: () => ctx.config.queues.map((q) => q.name),
          onError: (err) => options.logger?.warn(`metrics: cannot read Redis: ${err.message}`, { actor: 'web' }),
        }).handler
      : undefined);
  const serve = createDashboard({ ctx, logger: options.logger, metricsHandler });
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    serve(req, res, options.mountPath).then(
      (answered) => {
        if (answered) return;
        if (next) next();
        else sendJson(res, 404, { error: 'not found' });
      },
      // Not handed to `next`: an app's default error handler (Express') would show the stack.
      (err: unknown) => sendFailure(res, err, `${req.method ?? '?'} request`, options.logger),
    );
  };
  return Object.assign(handler, {
    serve,
    close: async () => {
      await ctx.redis.quit().catch(() => ctx.redis.disconnect());
    },
  });
}
