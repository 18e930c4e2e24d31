// Pausing queues on every node, through the shared `<ns>:nexq:paused` hash (one per queue in the
// per-queue key layout) (Disque's PAUSE): 'in'
// refuses enqueues, 'out' stops every node fetching, 'all' both.
import { resolveQueue } from '../../config/queue-options';
import type { Manager } from '../actors/manager';
import { ActorNames } from '../run/node-context';
import type { AdminContext } from './context';
import { knownQueues } from '../redis/known-queues';

export type PauseMode = 'in' | 'out' | 'all';
export const PAUSE_MODES: PauseMode[] = ['in', 'out', 'all'];

/** Throws ConfigError for a bad queue name, TypeError for a bad mode. */
export async function pauseQueue(ctx: AdminContext, queue: string, mode: PauseMode = 'all'): Promise<void> {
  resolveQueue(queue, 1, 'queue');
  if (!PAUSE_MODES.includes(mode)) throw new TypeError("pause mode must be 'in', 'out' or 'all'");
  // Per-queue key layout: the pause lives with the queue, so the queue must be known to be listed.
  // Its key first: a name the layout cannot hold is refused before it joins the queue set.
  const paused = ctx.keys.paused(queue);
  if (ctx.keys.perQueue) await ctx.redis.sadd(ctx.keys.queues, queue);
  await ctx.redis.hset(paused, queue, mode);
}

export async function resumeQueue(ctx: AdminContext, queue: string): Promise<void> {
  await ctx.redis.hdel(ctx.keys.paused(queue), queue);
  // This node fetches at once; the others notice at their next poll.
  ctx.registry.whereis<Manager>(ActorNames.manager)?.send({ type: 'poll' });
}

/** Paused queues and how (shared by every node). */
export async function pausedQueues(ctx: AdminContext): Promise<Record<string, PauseMode>> {
  const { redis, keys, config } = ctx;
  if (!keys.perQueue) return (await redis.hgetall(keys.paused(''))) as Record<string, PauseMode>;
  const queues = await knownQueues(
    redis,
    keys,
    config.queues.map((q) => q.name),
  );
  const modes = await Promise.all(queues.map((queue) => redis.hget(keys.paused(queue), queue)));
  const paused: Record<string, PauseMode> = {};
  queues.forEach((queue, i) => modes[i] && (paused[queue] = modes[i] as PauseMode));
  return paused;
}
