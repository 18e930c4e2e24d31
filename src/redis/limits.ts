// Limits across nodes: which running hashes a job takes a slot in when it is fetched (its queue's
// when the queue has `globalConcurrency`, its class's when `classConcurrency` names it), so every
// step that settles or puts back the job gives the same slots back; the rate limits as the fetch
// counts them (`rateLimit`, `classRateLimits`), and which one a handler's `rateLimited` pauses.
import type { ResolvedConfig } from '../../config/validate';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import type { ClassLimit } from './fetch-script';
import { fairGroupOf } from './fair-queue';
import { jsonObject } from '../job/json-object';

/** The limited classes (running jobs, jobs per window, or both), as the fetch script takes them. */
export function classLimits(config: ResolvedConfig, keys: Keys): ClassLimit[] {
  const names = new Set([...Object.keys(config.classConcurrency), ...Object.keys(config.classRateLimits)]);
  return [...names].map((name) => {
    const limit = Object.hasOwn(config.classConcurrency, name) ? config.classConcurrency[name] : undefined;
    const rate = Object.hasOwn(config.classRateLimits, name) ? config.classRateLimits[name] : undefined;
    return { name, ...(limit === undefined ? {} : { limit, runningKey: keys.classRunning(name) }), rate };
  });
}

/**
 * What a handler's `rateLimited` pauses: its class's rate when `classRateLimits` names the class,
 * otherwise its queue's (with or without a `rateLimit`).
 */
export function throttled(
  config: ResolvedConfig,
  keys: Keys,
  queue: string,
  className: unknown,
): { rateKey: string; what: string } {
  if (typeof className === 'string' && Object.hasOwn(config.classRateLimits, className))
    return { rateKey: keys.classRate(className, queue), what: `class ${className}` };
  return { rateKey: keys.rate(queue), what: `queue ${queue}` };
}

/**
 * Every running hash of the limits this node knows (its limited queues' and classes'): where a
 * node that stops, boots or died has its slots dropped, including those of at-most-once jobs,
 * which hold slots without a backup entry while they run.
 */
export function allRunningKeys(config: ResolvedConfig, keys: Keys): string[] {
  const queues = config.queues.filter((q) => q.globalConcurrency !== undefined).map((q) => keys.running(q.name));
  return [...queues, ...Object.keys(config.classConcurrency).map((name) => keys.classRunning(name))];
}

/**
 * The running hashes a job (its class and group as read from its JSON) fetched from `queue` holds
 * a slot in: its queue's, its class's, its group's (a fair queue with `groupConcurrency`).
 */
export function heldSlots(
  config: ResolvedConfig,
  keys: Keys,
  queue: string,
  job: { class?: unknown; group?: unknown },
): string[] {
  const slots: string[] = [];
  const spec = config.queues.find((q) => q.name === queue);
  if (spec?.globalConcurrency !== undefined) slots.push(keys.running(queue));
  const className = job.class;
  if (typeof className === 'string' && Object.hasOwn(config.classConcurrency, className))
    slots.push(keys.classRunning(className));
  if (spec?.fair && spec.groupConcurrency !== undefined) slots.push(keys.groupRunning(queue, fairGroupOf(job.group)));
  return slots;
}

/**
 * Drops every slot this node holds in the limits it knows. Only when nothing runs on it (at boot,
 * and at stop once its jobs ended); a hash of the wrong type is left as it is (the fetch reports it).
 */
export async function dropNodeSlots(
  redis: RedisClient,
  config: ResolvedConfig,
  keys: Keys,
  nodeId = config.nodeId,
): Promise<void> {
  // One HDEL per hash: in the per-queue key layout they live in different slots.
  await Promise.all(allRunningKeys(config, keys).map((key) => redis.hdel(key, nodeId)));
}

/**
 * The running hashes of the groups whose jobs node `nodeId` holds in its backup lists of `queues`
 * (fair queues with `groupConcurrency`): no key names every group, so they are read from its jobs.
 */
export async function groupSlotsHeld(
  redis: RedisClient,
  config: ResolvedConfig,
  keys: Keys,
  nodeId: string,
  queues: Iterable<string>,
): Promise<string[]> {
  const slots = new Set<string>();
  for (const queue of queues) {
    if (!config.queues.some((q) => q.name === queue && q.fair && q.groupConcurrency !== undefined)) continue;
    for (const raw of await redis.lrange(keys.backup(nodeId, queue), 0, -1))
      slots.add(keys.groupRunning(queue, fairGroupOf(jsonObject(raw)?.group)));
  }
  return [...slots];
}

/**
 * Gives back the group slots node `nodeId` holds for the jobs of its backup list of `queue`, before
 * that list goes back to the queue (requeue-backup.lua gives back the queue's slot only): at boot,
 * at a stop that puts its jobs back, and when a survivor sweeps a gone node's lists.
 */
export async function dropGroupSlots(
  redis: RedisClient,
  config: ResolvedConfig,
  keys: Keys,
  nodeId: string,
  queue: string,
): Promise<void> {
  // One HDEL per hash: each is in the queue's slot, but the groups are many.
  for (const slot of await groupSlotsHeld(redis, config, keys, nodeId, [queue])) await redis.hdel(slot, nodeId);
}
