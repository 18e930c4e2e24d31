// Clearing a whole queue or set, as Sidekiq's "Clear" (Queue#clear, RetrySet#clear): each list or
// sorted set is emptied in one step (renamed to its clearing key), then its jobs are forgotten in the
// job index and their unique locks let go a stretch per call (src/redis/move-scripts.ts). Jobs
// already fetched by a node (its backup lists) are not touched.
import { clearQueueList } from '../redis/move-scripts';
import { deleteAll } from './actions';
import { AdminContext, JobSet } from './context';

/** Empties `queue`; resolves to how many jobs it held. The queue stays known (in `<ns>:queues`). */
export function clearQueue(ctx: AdminContext, queue: string): Promise<number> {
  return clearQueueList(ctx.redis, ctx.keys, queue);
}

/** Empties the schedule, retry or dead set; resolves to how many entries it held. */
export function clearJobSet(ctx: AdminContext, set: JobSet): Promise<number> {
  return deleteAll(ctx, set);
}
