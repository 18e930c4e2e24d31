// Killing a job waiting for a retry, as Sidekiq's "Kill" (SortedEntry#kill): it moves from the retry
// set to the dead set now, in one atomic step that keeps its place in the job index.
import { nowSeconds } from '../job/time';
import { buryDue } from '../redis/move-scripts';
import { AdminContext, setKeys } from './context';
import { findInSets } from './find';
import { jidOf } from '../job/json-object';

export interface KillResult {
  jid: string;
  /** Why it was not killed (absent when it was). */
  error?: string;
}

/** Moves the job `jid` from the retry set to the dead set, scored now. */
export async function killJob(ctx: AdminContext, jid: string): Promise<KillResult> {
  const found = (await findInSets(ctx, jid, ['retry'])).at(0);
  if (found === undefined) return { jid, error: `no job ${jid} in the retry set` };
  const now = ctx.clock?.now() ?? nowSeconds();
  const moved = await buryDue(ctx.redis, ctx.keys, found.queue ?? '', found.key, found.raw, found.raw, jid, now);
  return moved ? { jid } : { jid, error: `job ${jid} left the retry set before it could be killed` };
}

/** Moves every entry of the retry set to the dead set; the jids moved. */
export async function killAll(ctx: AdminContext): Promise<string[]> {
  const killed: string[] = [];
  const now = ctx.clock?.now() ?? nowSeconds();
  for (const { key, queue = '' } of await setKeys(ctx, 'retry')) {
    for (;;) {
      const batch = await ctx.redis.zrange(key, 0, 99);
      let moved = 0;
      for (const raw of batch) {
        const jid = jidOf(raw);
        if (await buryDue(ctx.redis, ctx.keys, queue, key, raw, raw, jid, now)) {
          killed.push(jid);
          moved++;
        }
      }
      if (batch.length < 100 || moved === 0) break;
    }
  }
  return killed;
}
