// Kill (Sidekiq's Web UI "Kill"): a job waiting for its retry goes to the dead set now, unchanged,
// scored by the time it was killed. One atomic script per job (bury-due.lua): it leaves the retry
// set and enters the dead set in the same step, or stays where it was when it moved meanwhile.
import { nowSeconds } from '../job/time';
import { jidOf } from '../job/json-object';
import { buryDue } from '../redis/move-scripts';
import { AdminContext, setKeys } from './context';
import { findInSets, Found } from './find';

/** Either the job was killed (it is in the dead set now) or why it was not. */
export type KillResult =
  { jid: string; killed: true; error?: undefined } | { jid: string; killed: false; error: string };

/** Moves one retry entry to the dead set; false when it had left the retry set meanwhile. */
async function bury(ctx: AdminContext, found: Found): Promise<boolean> {
  const queue = found.queue ?? '';
  const now = ctx.clock?.now() ?? nowSeconds();
  return buryDue(ctx.redis, ctx.keys, queue, found.key, found.raw, found.raw, jidOf(found.raw), now);
}

/** Moves the job `jid` from the retry set to the dead set. */
export async function killJob(ctx: AdminContext, jid: string): Promise<KillResult> {
  const found = (await findInSets(ctx, jid, ['retry'])).at(0);
  if (!found) return { jid, killed: false, error: `no job ${jid} in the retry set` };
  return (await bury(ctx, found))
    ? { jid, killed: true }
    : { jid, killed: false, error: `job ${jid} left the retry set before it could be killed` };
}

/**
 * Moves the entries of the retry set to the dead set, as many as it held when called (jobs failing
 * meanwhile are not chased); the jids moved.
 */
export async function killAll(ctx: AdminContext): Promise<string[]> {
  const killed: string[] = [];
  for (const { key, queue } of await setKeys(ctx, 'retry')) {
    // Each entry read is moved or was gone already, so the next read starts past it.
    for (let left = await ctx.redis.zcard(key); left > 0;) {
      const batch = await ctx.redis.zrange(key, 0, Math.min(left, 100) - 1);
      if (batch.length === 0) break;
      left -= batch.length;
      for (const raw of batch) if (await bury(ctx, { where: 'retry', key, raw, queue })) killed.push(jidOf(raw));
    }
  }
  return killed;
}
