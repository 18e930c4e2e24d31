// The stop's Redis clean-up, once the tree has stopped: remove this node's process entry; put the
// jobs the stop cut off back in their queues and leave the node list, then give the node id back;
// then QUIT. The process entry does not depend on the rest, so the two run side by side, and all
// of it ends by the stop's deadline (./stop-deadline.ts), whether Redis answers or not. A step
// that fails is said at warn with what stays behind; past the deadline the deadline's one line
// says it for every step skipped.
import type { NodeContext } from '../run/node-context';
import { runsJobs } from '../run/node-context';
import { leaveNodeList } from './node-list';
import { whenBackupRunsAgain } from './process-faults';
import type { StopDeadline } from './stop-deadline';

export async function leaveRedis(ctx: NodeContext, deadline: StopDeadline): Promise<void> {
  await deadline.within(Promise.all([removeProcessEntry(ctx, deadline), leaveAndGiveBack(ctx, deadline)]));
  await deadline.within(ctx.redis.quit().catch(() => {}));
}

/** Sidekiq's process entry goes at once, instead of lingering until it expires. */
async function removeProcessEntry(ctx: NodeContext, deadline: StopDeadline): Promise<void> {
  if (!runsJobs(ctx)) return;
  const { keys, identity, redis, logger } = ctx;
  await redis
    .multi()
    .srem(keys.processes, identity)
    .del(keys.process(identity), keys.processWorkers(identity), keys.processWork(identity), keys.processTree(identity))
    .exec()
    .catch((err: unknown) => {
      if (!deadline.passed)
        logger.warn(`process entry not removed (it expires within a minute): ${(err as Error).message}`, {
          actor: 'node',
        });
    });
}

/** The node list is left first: the id is free for the next process only once this node holds nothing under it. */
async function leaveAndGiveBack(ctx: NodeContext, deadline: StopDeadline): Promise<void> {
  const { config, logger } = ctx;
  await leaveNodeList(ctx).catch((err: unknown) => {
    if (!deadline.passed)
      logger.error(
        `leaving the node list failed: ${(err as Error).message}; jobs it did not put back wait in its backup lists: ` +
          whenBackupRunsAgain(config),
        { actor: 'node' },
      );
  });
  if (deadline.passed) return;
  await ctx.nodeClaim?.release(ctx.redis).catch((err: unknown) => {
    if (!deadline.passed)
      logger.warn(`giving back node id ${config.nodeId} failed: ${(err as Error).message}`, { actor: 'node' });
  });
}
