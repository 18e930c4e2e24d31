// The latest progress of a running job (`this.progress(value)`): this node's own from its table of
// running jobs, another node's from the workers hash its heartbeat last wrote (as of that beat).
import type { NodeContext } from '../run/node-context';
import { jsonObject } from '../job/json-object';

export async function progressOf(
  ctx: Pick<NodeContext, 'redis' | 'keys' | 'config' | 'jobs'>,
  jid: string,
  nodeId: string,
): Promise<unknown> {
  if (nodeId === ctx.config.nodeId && ctx.jobs) {
    const here = ctx.jobs.running.list().find((job) => job.jid === jid && job.progress !== undefined);
    if (here) return here.progress;
  }
  const identity = await ctx.redis.hget(ctx.keys.nodeIdentities, nodeId);
  if (identity === null) return undefined;
  const work = await ctx.redis.hget(ctx.keys.processWorkers(identity), jid);
  return work === null ? undefined : jsonObject(work)?.progress;
}
