// The node's place in Redis' node list: the default node id it claims at start (an earlier
// process' id on this host, when that process is proven dead), and leaving the list at stop once
// it holds nothing under its id.
import type { NodeContext } from '../run/node-context';
import { NodeClaim } from '../redis/node-claim';
import { backupQueuesOf } from '../redis/backups';
import { requeueBackup } from '../redis/move-scripts';
import { dropGroupSlots, dropNodeSlots } from '../redis/limits';

/**
 * The default node id (src/redis/node-claim.ts): `<host>-<n>`, the lowest free on this host, or the
 * one of an earlier process here proven dead, whose backup lists this node then re-enqueues at boot.
 * `ownLogger`: the node made its logger, whose lines name the node: they name the claimed id now.
 */
export async function claimNodeId(ctx: NodeContext, ownLogger: boolean): Promise<void> {
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
export async function leaveNodeList(ctx: NodeContext): Promise<void> {
  const { redis, keys, config } = ctx;
  if (config.mode !== 'default') return;
  if (!config.fixedNodeId) {
    for (const queue of await backupQueuesOf(redis, keys, config.nodeId)) {
      await dropGroupSlots(redis, config, keys, config.nodeId, queue);
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
