// Cancelling a running job, on whichever node runs it: the jid is published on
// `<ns>:nexq:cancel` until the job is in the dead set; each node's Canceller stops it if it runs
// there. `Nexq#cancel` and the dashboard's Cancel button both come here.
import { jsonObject } from '../job/json-object';
import { indexEntryOf, locateJob, parseEntry } from '../redis/job-index';
import type { AdminContext } from './context';

/** How often the request is sent again while the job still runs. */
const CANCEL_REPEAT_MS = 1000;

/**
 * Cancels the running job `jid`: resolves true once it is dead with the reason `cancelled`, false
 * when it is not running (or ended otherwise first); throws after `timeoutMs`. The request is
 * repeated until it takes, so one lost with a dropped connection is sent again. `ctx.redis` is read
 * at each step, so a client the node replaced meanwhile is not used.
 */
export async function cancelJob(ctx: AdminContext, jid: string, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let lastRequest = 0;
  for (;;) {
    const { redis, keys } = ctx;
    const found = await locateJob(redis, keys, jid);
    if (found?.state === 'dead') return jsonObject(found.raw)?.error_class === 'JobCancelledError';
    // An at-most-once job runs off its backup list: the index alone says it runs, and where.
    const entry = found ? undefined : await indexEntryOf(redis, keys, jid);
    const running = found?.state === 'running' ? found : entry ? parseEntry(entry.entry) : undefined;
    if (running?.state !== 'running') return false;
    if (Date.now() > deadline)
      throw new Error(`job ${jid} was not cancelled within ${timeoutMs} ms (is node ${running.node} running?)`);
    if (Date.now() - lastRequest >= CANCEL_REPEAT_MS) {
      await redis.publish(keys.cancelChannel, jid);
      lastRequest = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
