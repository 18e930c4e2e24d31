// One running nexq node: the resources its actors share (Redis client, thread pool, work table,
// handler registry) and its supervision tree. Opens them in order and closes them in reverse.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { Actor, describeReason, isCleanExit, Registry } from '../runtime';
import { resolveConfig, ResolvedConfig } from '../../config/validate';
import type { NexqConfig } from '../../config/defaults';
import { ConfigError } from '../../config/config-error';
import { ConfigSources, namingSource, redisSource } from '../../config/load';
import { JobEvents } from '../events/job-events';
import { HandlerRegistry } from '../handlers/registry';
import { checkHandlers } from '../handlers/check';
import { createLogger, errorFields, Logger } from '../runtime/logger';
// Metrics (prom-client) and the web dashboard load on first use: a node without them never pays for them.
import type { NodeMetrics } from '../metrics/prometheus';
import type { MetricsServer } from '../metrics/server';
import type { Middleware } from '../run/middleware';
import { describeTarget } from '../redis/connection';
import { Keys } from '../redis/keys';
import type { NodeContext } from '../run/node-context';
import type { WebServer } from '../web/server';
import { Clock } from '../job/time';
import { NodeLifecycle } from '../run/lifecycle';
import { leaseSpanMs, NodeLease } from '../run/lease';
import { watchProcessFaults } from './process-faults';
import { openMainClient, waitForRedis, warnOfEviction, warnOfJobsElsewhere } from './boot-redis';
import { claimNodeId } from './node-list';
import { leaveRedis } from './leave-redis';
import { CLEANUP_FLOOR_MS, StopDeadline } from './stop-deadline';
import { encryptionOf, openJobParts } from './job-parts';
import { nodeTree } from '../../supervisors/node-tree';
import type { Supervisor } from '../../supervisors/supervisor';

export interface NodeStartOptions extends NexqConfig {
  /** Extra middleware, run inside the built-in stats and logging middleware. */
  middleware?: Middleware[];
  /** Use this winston logger instead of creating one from logLevel/logFormat. */
  logger?: Logger;
}

/** What the caller knows of the options: where each came from, and what to warn of (NEXQ_ variables none reads). */
export interface StartProvenance {
  sources: ConfigSources;
  warnings: string[];
}

export class NexqNode {
  /** The web dashboard, when `web` is configured. */
  web?: WebServer;

  /** Ends the watch on the process' unhandled errors (./process-faults.ts) at stop. */
  private readonly unwatchFaults: () => void;

  private constructor(
    readonly ctx: NodeContext,
    private readonly tree: Supervisor,
  ) {
    this.unwatchFaults = watchProcessFaults({
      logger: ctx.logger,
      config: ctx.config,
      running: () => ctx.jobs?.running.size ?? 0,
    });
  }

  static async start(
    options: NodeStartOptions = {},
    provenance: StartProvenance = { sources: {}, warnings: [] },
  ): Promise<NexqNode> {
    const { middleware = [], logger: givenLogger, ...config } = options;
    const resolved = resolvedFrom(config, provenance.sources);
    const identity = `${os.hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
    const logger =
      givenLogger ??
      createLogger({ level: resolved.logLevel, format: resolved.logFormat, defaultMeta: { node: resolved.nodeId } });
    for (const warning of provenance.warnings) logger.warn(warning, { actor: 'node' });
    const redisFrom = redisSource(provenance.sources);
    // Every handler loads before anything connects: a bad one stops the start, naming its file.
    const handlers = resolved.mode === 'default' ? new HandlerRegistry(resolved.jobs, resolved.jobsDir) : undefined;
    if (handlers) logger.info(await checkHandlers(handlers), { actor: 'node' });
    const encryption = encryptionOf(resolved, handlers);
    const openRedis = () => openMainClient(resolved, logger);
    const redis = openRedis();
    const ctx: NodeContext = {
      // The keys live in `encryption` only, so no reader of the config (or a dump of it) holds them.
      config: { ...resolved, encryptionKeys: undefined },
      encryption,
      redis,
      openRedis,
      keys: new Keys(resolved.namespace, resolved.keyLayout),
      logger,
      registry: new Registry(),
      identity,
      startedAt: Date.now() / 1000, // restated by Redis' clock at its first sample (ClockWatch)
      clock: new Clock(),
      lifecycle: new NodeLifecycle(),
      lease: new NodeLease(leaseSpanMs(resolved.nodeTimeout, resolved.heartbeatInterval)),
      events: new JobEvents(logger),
      requestStop: () => {
        node?.stop().catch((err: unknown) =>
          logger.error(`stopping as asked through Redis failed: ${errorFields(err).message}`, {
            actor: 'node',
            error: errorFields(err),
          }),
        );
      },
    };
    let node: NexqNode | undefined;
    try {
      await waitForRedis(ctx, redisFrom, resolved.redisStartTimeout || undefined);
      if (resolved.mode === 'default' && !resolved.fixedNodeId) await claimNodeId(ctx, !givenLogger);
      await warnOfEviction(ctx);
      if (handlers) ctx.jobs = openJobParts(ctx, handlers, middleware);
      const tree = await Actor.start(nodeTree(ctx));
      ctx.supervisionTree = () => tree.snapshot();
      node = new NexqNode(ctx, tree);
      tree.watch(({ reason }) => {
        if (!isCleanExit(reason))
          logger.error(`supervision tree gave up: ${describeReason(reason)}`, { actor: 'nexq.root' });
      });
      logger.info(
        `node ${ctx.config.nodeId} started (${resolved.mode} mode, redis ${describeTarget(resolved.redis)} (${redisFrom}), namespace ${JSON.stringify(resolved.namespace)}, ` +
          `queues ${resolved.queues.map((q) => `${q.name}:${q.concurrency}`).join(',') || 'none'})`,
        { actor: 'node' },
      );
      await node.startMetrics();
      if (handlers) warnOfJobsElsewhere(ctx).catch(() => undefined); // advice: it catches its own failures
    } catch (err) {
      await ctx.jobs?.pool.destroy().catch(() => {});
      ctx.redis.disconnect();
      throw err;
    }
    if (resolved.web) {
      // Served once the tree is up. A port that cannot be bound fails the start: the node stops again.
      const { web } = resolved;
      const { WebServer } = require('../web/server') as typeof import('../web/server');
      node.web = await WebServer.start({ ...web, ctx, logger, metricsHandler: node.metrics.handler }).catch(
        async (err: unknown) => {
          await node.stop();
          throw new Error(`web dashboard on ${web.host}:${web.port}: ${(err as Error).message}`);
        },
      );
    }
    return node;
  }

  private metricsInstance?: NodeMetrics;
  private metricsServer?: MetricsServer;

  /** This node's Prometheus metrics; counting from start with the `metrics` option, else from first use. */
  get metrics(): NodeMetrics {
    return this.startCounting();
  }

  private startCounting(): NodeMetrics {
    if (this.metricsInstance) return this.metricsInstance;
    const { NodeMetrics } = require('../metrics/prometheus') as typeof import('../metrics/prometheus');
    return (this.metricsInstance = new NodeMetrics(this.ctx));
  }

  /** Where the standalone metrics endpoint listens (with `metrics: { port }`). */
  get metricsAddress(): { host: string; port: number } | undefined {
    return this.metricsServer && { host: this.metricsServer.host, port: this.metricsServer.port };
  }

  /** After the tree is up: metrics count from now on, and with a port they are served. */
  private async startMetrics(): Promise<void> {
    const option = this.ctx.config.metrics;
    if (!option) return;
    this.startCounting();
    if (typeof option !== 'object') return;
    try {
      const { serveMetrics } = require('../metrics/server') as typeof import('../metrics/server');
      this.metricsServer = await serveMetrics(this.metrics.handler, option.port, option.host, this.ctx.logger);
    } catch (err) {
      await this.stop().catch(() => {});
      throw err;
    }
    this.ctx.logger.info(
      `metrics at http://${option.host ?? this.metricsServer.host}:${this.metricsServer.port}/metrics`,
      { actor: 'node' },
    );
  }

  /** Typed job events: `node.events.on('job:success', (e) => ...)`. */
  get events(): JobEvents {
    return this.ctx.events;
  }

  get running(): boolean {
    return this.tree.alive;
  }

  /** Resolves when the node stops, with the reason (clean or the root's crash). */
  get exited(): Promise<unknown> {
    return this.tree.exited;
  }

  private stopping?: Promise<void>;
  private resolveStopped!: () => void;
  /** Resolves once the node has stopped, whoever stopped it (stop(), or TERM through Redis). */
  readonly stopped = new Promise<void>((resolve) => (this.resolveStopped = resolve));

  /**
   * Graceful stop: the manager stops fetching, running jobs get `shutdownTimeout` to finish, then
   * the node leaves Redis. Its Redis steps end by one deadline (./stop-deadline.ts), so the stop
   * is over within `shutdownTimeout` and a few seconds whether Redis answers or not.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const { config, logger } = this.ctx;
      this.ctx.lifecycle.stopBegan();
      const deadline = new StopDeadline(this.ctx);
      await this.web?.close();
      // Room for every child's own shutdown timeout (the manager's, the job runners', the rest).
      await this.tree.stop('shutdown', config.shutdownTimeout + 30_000);
      await this.metricsServer?.close();
      this.metricsInstance?.detach();
      await this.ctx.jobs?.pool.destroy();
      deadline.leaveAtLeast(CLEANUP_FLOOR_MS);
      await leaveRedis(this.ctx, deadline);
      deadline.end();
      // Also after QUIT: only disconnect() ends a Sentinel client's failover detector, whose
      // sentinel connections would otherwise go on retrying (and erring) after the node stopped.
      this.ctx.redis.disconnect();
      this.unwatchFaults();
      logger.info('node stopped', { actor: 'node' });
      this.resolveStopped();
    })();
    return this.stopping;
  }
}

/** The options resolved; a bad one's error names where it came from (a variable, a file, a flag). */
function resolvedFrom(config: NexqConfig, sources: ConfigSources): ResolvedConfig {
  try {
    return resolveConfig(config);
  } catch (err) {
    throw err instanceof ConfigError ? namingSource(err, sources) : err;
  }
}
