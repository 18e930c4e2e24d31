// One running nexq node: the resources its actors share (Redis client, thread pool, work table,
// handler registry) and its supervision tree. Opens them in order and closes them in reverse.
import { RedisUnreachableError } from '../redis/ended';
import { Cluster, ReplyError } from 'ioredis';
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
import { loggingMiddleware } from '../run/logging-middleware';
// Metrics (prom-client) and the web dashboard load on first use: a node without them never pays for them.
import type { NodeMetrics } from '../metrics/prometheus';
import type { MetricsServer } from '../metrics/server';
import type { Middleware } from '../run/middleware';
import { connectTarget, describeTarget } from '../redis/connection';
import { replicationWarnings } from '../redis/replication-check';
import { AckBatcher } from '../redis/ack-batcher';
import { evictionPolicies, evictionWarnings } from '../redis/eviction-policy';
import { backupQueuesOf } from '../redis/backups';
import { describeElsewhere, queuesUnderOtherNamespaces } from '../redis/other-namespaces';
import { Keys } from '../redis/keys';
import { checkSlotsOn, ScriptedRedis } from '../redis/scripts';
import { requeueBackup } from '../redis/move-scripts';
import { NodeClaim } from '../redis/node-claim';
import { dropNodeSlots } from '../redis/limits';
import type { NodeContext } from '../run/node-context';
import { ThreadPool } from '../pool/thread-pool';
import { BatchJob, joinBatch } from '../admin/batch';
import type { WebServer } from '../web/server';
import { JobCounters, statsMiddleware } from '../run/job-counters';
import { ClassTimings } from '../run/class-timings';
import { Clock } from '../job/time';
import { Encryption, KeyRing } from '../job/encryption';
import { RunningJobs } from '../run/running-jobs';
import { reportProgress } from '../run/progress';
import { NodeLifecycle } from '../run/lifecycle';
import { leaseSpanMs, NodeLease } from '../run/lease';
import { watchProcessFaults } from './process-faults';
import { nodeTree } from '../../supervisors/node-tree';
import { replaceEndedClient } from '../actors/redis-connection';
import type { Supervisor } from '../../supervisors/supervisor';

export interface NodeStartOptions extends NexqConfig {
  /** Extra middleware, run inside the built-in stats and logging middleware. */
  middleware?: Middleware[];
  /** Use this winston logger instead of creating one from logLevel/logFormat. */
  logger?: Logger;
}

const REDIS_WAIT_LOG_MS = 2000;

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
      if (handlers) {
        const running = new RunningJobs(() => ctx.clock.now());
        const counters = new JobCounters();
        const timings = new ClassTimings((name) => handlers.has(name));
        // The configured queues are subscribed from the start, so every reader of the table sees them.
        for (const q of resolved.queues) running.slots.add(q.name, q.concurrency);
        ctx.jobs = {
          running,
          handlers,
          pool: new ThreadPool({
            threads: resolved.threads,
            maxHeapMb: resolved.threadMaxHeapMb,
            mainYoungGenerationMb: resolved.maxYoungGenerationMb,
            threadYoungGenerationMb: resolved.threadYoungGenerationMb,
            data: {
              workTable: running.slots.buffer,
              retry: { dialect: resolved.dialect, maxRetries: resolved.maxRetries },
              setup: resolved.threadSetup,
            },
            onProgress: (jid, value) => reportProgress(ctx, running, jid, value),
            enqueueInBatch: (bid, jobs) => joinBatch(ctx, bid).enqueueAll(jobs as BatchJob[]),
          }),
          middleware: [statsMiddleware(counters, timings), loggingMiddleware(logger), ...middleware],
          counters,
          timings,
          acks: new AckBatcher(() => ctx.redis, ctx.keys),
        };
        const { claims } = ctx.jobs.pool;
        ctx.lease.onRenewed = (until) => claims.leaseUntil(until);
        ctx.lease.onForfeit = () => claims.newGeneration();
      }
      const tree = await Actor.start(nodeTree(ctx));
      ctx.supervisionTree = () => tree.snapshot();
      node = new NexqNode(ctx, tree);
      tree.watch(({ reason }) => {
        if (!isCleanExit(reason))
          logger.error(`supervision tree gave up: ${describeReason(reason)}`, { actor: 'nexq.root' });
      });
      logger.info(
        `node ${resolved.nodeId} started (${resolved.mode} mode, redis ${describeTarget(resolved.redis)} (${redisFrom}), namespace ${JSON.stringify(resolved.namespace)}, ` +
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

  /** Graceful stop: the manager stops fetching, running jobs get `shutdownTimeout` to finish. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const { config, logger, redis } = this.ctx;
      await this.web?.close();
      // Room for every child's own shutdown timeout (the manager's, the job runners', the rest).
      await this.tree.stop('shutdown', config.shutdownTimeout + 30_000);
      await this.metricsServer?.close();
      this.metricsInstance?.detach();
      await this.ctx.jobs?.pool.destroy();
      await leaveNodeList(this.ctx).catch((err: unknown) =>
        logger.error(`leaving the node list failed: ${(err as Error).message}`, { actor: 'node' }),
      );
      // Last: the id is free for the next process only once this node holds nothing under it.
      await this.ctx.nodeClaim
        ?.release(redis)
        .catch((err: unknown) =>
          logger.warn(`giving back node id ${config.nodeId} failed: ${(err as Error).message}`, { actor: 'node' }),
        );
      await redis.quit().catch(() => {});
      // Also after QUIT: only disconnect() ends a Sentinel client's failover detector, whose
      // sentinel connections would otherwise go on retrying (and erring) after the node stopped.
      redis.disconnect();
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

/**
 * The node's main client. ioredis reconnects by itself; the log says why the link dropped, once
 * per outage (its messages hold no credentials), and when it is back.
 */
function openMainClient(config: ResolvedConfig, logger: Logger): ScriptedRedis {
  const redis = connectTarget(config.redis);
  // A cluster refuses CROSSSLOT itself; on one server the per-queue layout checks for it here.
  if (config.keyLayout === 'per-queue' && !(redis instanceof Cluster)) checkSlotsOn(redis);
  let outage: string | undefined;
  redis.on('error', (err: Error) => {
    if (err.message !== outage) logger.warn(`redis: ${(outage = err.message)}`, { actor: 'redis' });
  });
  redis.on('ready', () => {
    if (outage !== undefined) logger.info('redis: connected again', { actor: 'redis' });
    outage = undefined;
  });
  return redis;
}

/**
 * The default node id (src/redis/node-claim.ts): `<host>-<n>`, the lowest free on this host, or the
 * one of an earlier process here proven dead, whose backup lists this node then re-enqueues at boot.
 * `ownLogger`: the node made its logger, whose lines name the node: they name the claimed id now.
 */
async function claimNodeId(ctx: NodeContext, ownLogger: boolean): Promise<void> {
  const { config, logger } = ctx;
  const { claim, tookOver } = await NodeClaim.take(ctx.redis, ctx.keys, config.nodeTimeout * 1000);
  config.nodeId = claim.nodeId;
  ctx.nodeClaim = claim;
  if (ownLogger) logger.defaultMeta = { ...(logger.defaultMeta as object), node: claim.nodeId };
  if (tookOver)
    logger.info(
      `took node id ${claim.nodeId} over from pid ${tookOver.pid}, which no longer runs: its unfinished jobs go back to their queues now`,
      { actor: 'node' },
    );
}

/**
 * After the jobs stopped: a node with a generated id will never boot again under it, so it puts
 * its unfinished jobs back in their queues now. It leaves the node list only once it has no backup
 * left; otherwise its beat ages out and a survivor (or its own next boot) re-enqueues them.
 */
/**
 * What this node encrypts (queues and handler modules that ask) and with which keys. A queue or
 * module that asks with no keys configured stops the start: its jobs would otherwise be refused one
 * by one at enqueue.
 */
function encryptionOf(config: ResolvedConfig, handlers: HandlerRegistry | undefined): Encryption {
  const encryption = {
    ring: KeyRing.parse(config.encryptionKeys),
    queues: new Set(config.queues.filter((q) => q.encrypt).map((q) => q.name)),
    classes: new Set(handlers?.encryptedClasses),
  };
  const asking = [...encryption.queues].map((q) => `queue ${q}`).concat([...encryption.classes]);
  if (!encryption.ring && asking.length > 0)
    throw new ConfigError('encryptionKeys', `set: ${asking.join(', ')} ask for encrypted args`, undefined);
  return encryption;
}

async function leaveNodeList(ctx: NodeContext): Promise<void> {
  const { redis, keys, config } = ctx;
  if (config.mode !== 'default') return;
  if (!config.fixedNodeId) {
    for (const queue of await backupQueuesOf(redis, keys, config.nodeId)) {
      await requeueBackup(redis, keys, config.nodeId, queue);
    }
  }
  // Every job has stopped: the node holds no slot of any limit (an at-most-once job cut off held
  // one without a backup entry).
  await dropNodeSlots(redis, config, keys);
  if ((await backupQueuesOf(redis, keys, config.nodeId)).length === 0) {
    await redis.multi().zrem(keys.nodes, config.nodeId).hdel(keys.nodeIdentities, config.nodeId).exec();
  }
}

/**
 * Connects. When Redis has not answered after 2 s, says once which address (without credentials),
 * where it came from and why, and keeps trying; after `giveUpMs` (the `redisStartTimeout`), fails
 * with the same words.
 */
async function waitForRedis(ctx: NodeContext, redisFrom: string, giveUpMs?: number): Promise<void> {
  const { redis, logger, config } = ctx;
  let reason: string | undefined;
  const noteReason = (err: Error) => (reason = err.message);
  redis.on('error', noteReason);
  const unreachable = (within: string) =>
    `cannot reach Redis at ${describeTarget(config.redis)} (${redisFrom})${within}${reason ? ` (${reason})` : ''}`;
  const timers: NodeJS.Timeout[] = [];
  const gaveUp = new Promise<never>((_, reject) => {
    const forHowLong = giveUpMs === undefined ? '' : `, for up to ${giveUpMs / 1000} s (redisStartTimeout)`;
    if (giveUpMs === undefined || giveUpMs > REDIS_WAIT_LOG_MS)
      timers.push(
        setTimeout(
          () => logger.error(`${unreachable('')}; still trying${forHowLong}`, { actor: 'node' }),
          REDIS_WAIT_LOG_MS,
        ),
      );
    if (giveUpMs !== undefined)
      timers.push(
        setTimeout(() => reject(new RedisUnreachableError(unreachable(` within ${giveUpMs / 1000} s`))), giveUpMs),
      );
  });
  const pinging = { stop: false };
  try {
    redis.connect().catch(() => {}); // ioredis keeps reconnecting by its retry strategy
    await Promise.race([pingUntilAnswered(ctx, pinging), gaveUp]);
  } finally {
    pinging.stop = true;
    for (const timer of timers) clearTimeout(timer);
    redis.off('error', noteReason);
  }
  for (const warning of await replicationWarnings(ctx.redis, config.redis, ctx.keys.queues))
    logger.warn(warning, { actor: 'node' });
}

/**
 * Says once, after the start, when a queue this node serves holds jobs under another namespace
 * (a Sidekiq producer's `queue:<q>`, Exq's `exq:queue:<q>`): they would wait unseen for ever.
 */
async function warnOfJobsElsewhere(ctx: NodeContext): Promise<void> {
  const { redis, keys, config, logger } = ctx;
  try {
    const served = config.queues.map((q) => q.name);
    const found = await queuesUnderOtherNamespaces(redis, keys, served);
    if (found.length > 0)
      logger.warn(describeElsewhere(found, config.namespace, 'the namespace option (NEXQ_NAMESPACE, --namespace)'), {
        actor: 'node',
      });
  } catch (err) {
    // SCAN may be refused (an ACL) or the node stopping: the look is advice, not a condition to run.
    logger.debug(`could not look for jobs under other namespaces: ${(err as Error).message}`, { actor: 'node' });
  }
}

/** Says loudly, once at start, when Redis may evict jobs (its maxmemory-policy is not noeviction). */
async function warnOfEviction({ redis, logger }: NodeContext): Promise<void> {
  try {
    for (const warning of evictionWarnings(await evictionPolicies(redis))) logger.warn(warning, { actor: 'node' });
  } catch (err) {
    // INFO may be refused (an ACL, a renamed command): the check is advice, not a condition to start.
    logger.debug(`could not read Redis' maxmemory-policy: ${(err as Error).message}`, { actor: 'node' });
  }
}

/**
 * PING until Redis answers. A ping that times out while ioredis reconnects is sent again (the
 * command timeout must not end a node's wait); an error reply (NOAUTH, ...) fails the start.
 */
async function pingUntilAnswered(ctx: NodeContext, pinging: { stop: boolean }): Promise<void> {
  for (;;) {
    try {
      await ctx.redis.ping();
      return;
    } catch (err) {
      if (err instanceof ReplyError)
        throw new Error(`Redis at ${describeTarget(ctx.config.redis)} refused: ${(err as Error).message}`);
      if (pinging.stop) throw err;
      // ioredis gave up on it (src/redis/ended.ts): the start goes on with a fresh one.
      if (ctx.redis.status === 'end') replaceEndedClient(ctx);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
