// The jobs waiting in a queue and the entries of the schedule, retry and dead sets, as JobViews.
import { AdminContext, JobSet, setKeys } from './context';
import { jobView, JobView } from './job-view';

/** The jobs waiting in `queue`, the next to run (the list's right end) first, from `offset` on. */
export async function queueJobs(
  { redis, keys, encryption }: AdminContext,
  queue: string,
  limit: number,
  offset = 0,
): Promise<JobView[]> {
  if (limit === 0) return [];
  const raws = await redis.lrange(keys.queue(queue), -(offset + limit), -(offset + 1));
  return raws.reverse().map((raw) => jobView(raw, undefined, encryption?.ring));
}

/**
 * A set's entries, earliest score first, from `offset` on (in the per-queue key layout, the queues'
 * sets merged by score).
 */
export async function setJobs(ctx: AdminContext, set: JobSet, limit: number, offset = 0): Promise<JobView[]> {
  if (limit === 0) return [];
  const sets = await setKeys(ctx, set);
  const entries: Array<[raw: string, score: number]> = [];
  for (const { key } of sets) {
    const flat = await ctx.redis.zrange(key, sets.length === 1 ? offset : 0, offset + limit - 1, 'WITHSCORES');
    for (let i = 0; i < flat.length; i += 2) entries.push([flat[i], Number(flat[i + 1])]);
  }
  if (sets.length > 1) entries.sort((a, b) => a[1] - b[1]);
  return entries
    .slice(sets.length === 1 ? 0 : offset, (sets.length === 1 ? 0 : offset) + limit)
    .map(([raw, score]) => jobView(raw, score, ctx.encryption?.ring));
}
