// The node's first words with Redis: its main client (whose log says once why the link dropped),
// the wait until Redis answers at start (saying where the address came from, and giving up after
// `redisStartTimeout`), and the advice given once at start: eviction that may drop jobs, and jobs
// that wait under another namespace.
import { Cluster, ReplyError } from 'ioredis';
import type { ResolvedConfig } from '../../config/validate';
import type { Logger } from '../runtime/logger';
import { RedisUnreachableError } from '../redis/ended';
import { connectTarget, describeTarget } from '../redis/connection';
import { replicationWarnings } from '../redis/replication-check';
import { evictionPolicies, evictionWarnings } from '../redis/eviction-policy';
import { describeElsewhere, queuesUnderOtherNamespaces } from '../redis/other-namespaces';
import { checkSlotsOn, ScriptedRedis } from '../redis/scripts';
import type { NodeContext } from '../run/node-context';
import { replaceEndedClient } from '../actors/redis-connection';

const REDIS_WAIT_LOG_MS = 2000;

/**
 * The node's main client. ioredis reconnects by itself; the log says why the link dropped, once
 * per outage (its messages hold no credentials), and when it is back.
 */
export function openMainClient(config: ResolvedConfig, logger: Logger): ScriptedRedis {
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
 * Connects. When Redis has not answered after 2 s, says once which address (without credentials),
 * where it came from and why, and keeps trying; after `giveUpMs` (the `redisStartTimeout`), fails
 * with the same words.
 */
export async function waitForRedis(ctx: NodeContext, redisFrom: string, giveUpMs?: number): Promise<void> {
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
export async function warnOfJobsElsewhere(ctx: NodeContext): Promise<void> {
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
export async function warnOfEviction({ redis, logger }: NodeContext): Promise<void> {
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
