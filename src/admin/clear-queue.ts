// Clearing a queue (Sidekiq's Queue#clear): every job waiting in it is deleted in one atomic step,
// with its job index entry and its unique lock. Jobs that nodes fetched already run on.
import { clearQueueList } from '../redis/move-scripts';
import type { AdminContext } from './context';

/** Empties `queue`; resolves to how many jobs it held. */
export function clearQueue(ctx: AdminContext, queue: string): Promise<number> {
  return clearQueueList(ctx.redis, ctx.keys, queue);
}
