// The manager's recovery of its own backup lists: on boot every entry goes back to its queue (no
// worker of this run holds any), later only the entries no live worker holds (a fetch whose reply
// was lost, a wait cut off after its fetch ran, a worker killed with its job).
import type { NodeContext, JobsContext } from '../run/node-context';
import { jsonObject } from '../job/json-object';
import { dropGroupSlots, dropNodeSlots, heldSlots } from '../redis/limits';
import { backupQueuesOf } from '../redis/backups';
import { requeueBackup } from '../redis/move-scripts';
import { requeueJob } from '../redis/settle-scripts';

/** `served` and every queue this node has a backup list of (SCAN), once each. */
export async function queuesWithBackups(ctx: NodeContext, served: string[]): Promise<Set<string>> {
  // Served queues are looked at by key, not only through SCAN: mid-failover a cluster client may
  // not list a just-promoted master yet, and SCAN would miss the lists it holds.
  return new Set([...served, ...(await backupQueuesOf(ctx.redis, ctx.keys, ctx.config.nodeId))]);
}

/** Puts one queue's backup list of this node back into the queue; logs how many moved. */
export async function requeueOwnBackup(ctx: NodeContext, queue: string, actor: string): Promise<void> {
  const moved = await requeueBackup(ctx.redis, ctx.keys, ctx.config.nodeId, queue);
  if (moved > 0)
    ctx.logger.info(`re-enqueued ${moved} unfinished job(s) of queue ${queue} from this node's backup`, { actor });
}

/**
 * Boot: puts every backup list of this node back into its queue. A queue whose key is broken
 * (WRONGTYPE) goes to `broken` and the others go on.
 */
export async function rehydrateBackups(
  ctx: NodeContext,
  served: string[],
  actor: string,
  broken: (queue: string, message: string) => void,
): Promise<void> {
  const queues = await queuesWithBackups(ctx, served);
  // Nothing runs here yet: this node holds no slot of an earlier run.
  await dropNodeSlots(ctx.redis, ctx.config, ctx.keys);
  for (const queue of queues) {
    try {
      await dropGroupSlots(ctx.redis, ctx.config, ctx.keys, ctx.config.nodeId, queue);
      await requeueOwnBackup(ctx, queue, actor);
    } catch (err) {
      if (!/WRONGTYPE/.test((err as Error).message)) throw err;
      broken(queue, (err as Error).message);
    }
  }
}

/**
 * Puts every entry of this node's backup lists of `queues` that no runner holds back at the head
 * of its queue (a job fetched ahead is held by its runner while it waits on a thread).
 */
export async function reclaimUnworked(ctx: JobsContext, queues: Iterable<string>, actor: string): Promise<void> {
  const { keys, config, redis } = ctx;
  const running = ctx.jobs.running;
  for (const queue of queues) {
    const backup = keys.backup(config.nodeId, queue);
    if ((await redis.type(backup)) !== 'list') continue; // not ours to read; fetch reports the queue
    const unclaimed = running.unclaimed(queue, await redis.lrange(backup, 0, -1));
    for (const raw of unclaimed) {
      // As the fetch read it: the class whose slot it took and the jid it indexed, if any.
      const job = jsonObject(raw) ?? {};
      const held = { slots: heldSlots(config, keys, queue, job), nodeId: config.nodeId };
      const jid = typeof job.jid === 'string' ? job.jid : '';
      await requeueJob(
        redis,
        keys.jobIndex(queue),
        { backup, queueKey: keys.queue(queue), queue, raw, end: 'front', jid },
        held,
      );
    }
    if (unclaimed.length)
      ctx.logger.warn(`put ${unclaimed.length} job(s) no worker held back into queue ${queue}`, { actor });
  }
}
