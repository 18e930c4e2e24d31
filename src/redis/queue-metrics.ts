// Each queue's recent rate: for each UTC minute one hash (`keys.queueMetrics(minute)`), queue ->
// its jobs processed in that minute (failures included) by nexq nodes. Nodes add to it once per
// stats flush (the Stats actor, in the MULTI of the per-class metrics: src/redis/class-metrics.ts),
// one HINCRBY per queue that ran jobs, and each hash expires with the class metrics. A node-wide
// key, so in the per-queue layout it shares the stat counters' slot. Jobs that Sidekiq or Exq
// workers run are not counted; a node's last second of counts lands with its next flush.
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { minuteOf, RETENTION_SECONDS } from './class-metrics';

/** Minutes a queue's recent rate is read over (the current one, in part, and the whole ones before). */
export const RATE_MINUTES = 5;

/** Queues on `tx` the counts of `perQueue` (queue -> jobs processed) to `minute`'s hash, and its expiry. */
export function addQueueMetrics(
  tx: ChainableCommander,
  keys: Keys,
  minute: string,
  perQueue: Map<string, number>,
): void {
  if (perQueue.size === 0) return;
  const key = keys.queueMetrics(minute);
  for (const [queue, n] of perQueue) tx.hincrby(key, queue, n);
  tx.expire(key, RETENTION_SECONDS);
}

/**
 * `queue`'s jobs processed per second over the last RATE_MINUTES minutes up to `now` (epoch
 * seconds, by Redis' clock as the nodes count): the current minute counts for the seconds gone of
 * it. 0 when none ran then (unknown to a reader: no rate to estimate from).
 */
export async function recentRate(redis: RedisClient, keys: Keys, queue: string, now: number): Promise<number> {
  const minutes = Array.from({ length: RATE_MINUTES }, (_, i) => minuteOf(now - i * 60));
  const counts = await Promise.all(minutes.map((m) => redis.hget(keys.queueMetrics(m), queue)));
  const processed = counts.reduce((sum, n) => sum + (Number(n) || 0), 0);
  const seconds = (RATE_MINUTES - 1) * 60 + Math.max(1, now % 60);
  return processed / seconds;
}
