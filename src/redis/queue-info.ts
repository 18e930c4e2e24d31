// Every known queue's size and latency (seconds since its oldest waiting job was enqueued, like
// Sidekiq's Queue#latency), sent together; shared by `nexq queues` and the metrics.
import type { RedisClient } from './client';
import { readSeconds, nowSeconds, type Clock } from '../job/time';
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';
import { knownQueues } from './known-queues';
import { rawOfFairMember } from './fair-queue';

export interface QueueInfo {
  queue: string;
  size: number;
  /** Seconds since the oldest job (the list's right end) was enqueued; 0 when empty. */
  latency: number;
}

/** Every queue in the queues set plus `extra`, sorted, with size and latency. */
export async function queueInfo(
  { redis, keys, clock }: { redis: RedisClient; keys: Keys; clock?: Clock },
  extra: string[] = [],
): Promise<QueueInfo[]> {
  const names = await knownQueues(redis, keys, extra);
  if (names.length === 0) return [];
  // Sent together, not as one pipeline: in the per-queue key layout the queues live on several masters.
  // A fair queue's jobs wait in its groups too (fair-queue.ts); its latency is then its next job's.
  const replies = await Promise.all(
    names.map((queue) =>
      Promise.all([
        redis.llen(keys.queue(queue)),
        redis.lindex(keys.queue(queue), -1),
        redis.zcard(keys.fair(queue).jobs),
        redis.zrange(keys.fair(queue).jobs, 0, 0),
      ]),
    ),
  );
  const now = clock?.now() ?? nowSeconds();
  return names.map((queue, i) => {
    const [inList, oldestInList, inGroups, firstInGroups] = replies[i];
    const first = firstInGroups.at(0);
    const oldest = oldestInList ?? (first === undefined ? null : rawOfFairMember(first));
    const at = typeof oldest === 'string' ? readSeconds(jsonObject(oldest)?.enqueued_at) : undefined;
    return {
      queue,
      size: inList + inGroups,
      latency: at === undefined ? 0 : Math.max(0, Math.round((now - at) * 1000) / 1000),
    };
  });
}
