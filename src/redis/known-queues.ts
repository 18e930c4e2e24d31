// The queues a namespace knows: the queue set (every queue a job was ever pushed into) plus the
// ones a node is configured with. In the per-queue key layout each queue has its own schedule,
// retry and dead sets and job index, so whatever reads those across queues starts here.
import type { RedisClient } from './client';
import type { JobSet, Keys } from './keys';

/**
 * The known queues, sorted. A member of the set the key layout cannot name keys for (a braced name
 * in the per-queue layout, added before nexq refused them) holds no job and is left out: one such
 * name must not stop every reader of the set (the scheduler, the dashboard) for every queue.
 */
export async function knownQueues(redis: RedisClient, keys: Keys, extra: Iterable<string> = []): Promise<string[]> {
  return [...new Set([...(await redis.smembers(keys.queues)), ...extra])].filter((q) => keys.fits(q)).sort();
}

/** Every key of `set` (one in the shared layout, one per known queue in the per-queue layout). */
export async function jobSetKeys(
  redis: RedisClient,
  keys: Keys,
  set: JobSet,
  extra: Iterable<string> = [],
): Promise<Array<{ key: string; queue?: string }>> {
  return keys.jobSets(set, keys.perQueue ? await knownQueues(redis, keys, extra) : []);
}

/** How many entries `set` holds across its keys. */
export async function jobSetSize(
  redis: RedisClient,
  keys: Keys,
  set: JobSet,
  extra: Iterable<string> = [],
): Promise<number> {
  const sizes = await Promise.all((await jobSetKeys(redis, keys, set, extra)).map(({ key }) => redis.zcard(key)));
  return sizes.reduce((a, b) => a + b, 0);
}
