// Every known queue's size and latency (seconds since its oldest waiting job was enqueued, like
// Sidekiq's Queue#latency), read in one round trip; shared by `nexq queues` and the metrics.
import type { RedisClient } from './client';
import { readSeconds, nowSeconds } from '../job/time';
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';

export interface QueueInfo {
  queue: string;
  size: number;
  /** Seconds since the oldest job (the list's right end) was enqueued; 0 when empty. */
  latency: number;
}

/** Every queue in the queues set plus `extra`, sorted, with size and latency. */
export async function queueInfo({ redis, keys }: { redis: RedisClient; keys: Keys }, extra: string[] = []): Promise<QueueInfo[]> {
  const names = [...new Set([...(await redis.smembers(keys.queues)), ...extra])].sort();
  if (names.length === 0) return [];
  const tx = redis.pipeline();
  for (const queue of names) tx.llen(keys.queue(queue)).lindex(keys.queue(queue), -1);
  const replies = (await tx.exec()) ?? [];
  const now = nowSeconds();
  return names.map((queue, i) => {
    const [sizeErr, size] = replies[2 * i] ?? [];
    const [, oldest] = replies[2 * i + 1] ?? [];
    if (sizeErr) throw sizeErr;
    const at = typeof oldest === 'string' ? readSeconds(jsonObject(oldest)?.enqueued_at) : undefined;
    return { queue, size: Number(size), latency: at === undefined ? 0 : Math.max(0, Math.round((now - at) * 1000) / 1000) };
  });
}

