// The jobs waiting in a queue and the entries of the schedule, retry and dead sets, as JobViews.
import type { AdminContext, JobSet } from './context';
import { jobView, JobView } from './job-view';

/** The jobs waiting in `queue`, the next to run (the list's right end) first, from `offset` on. */
export async function queueJobs({ redis, keys }: AdminContext, queue: string, limit: number, offset = 0): Promise<JobView[]> {
  if (limit === 0) return [];
  const raws = await redis.lrange(keys.queue(queue), -(offset + limit), -(offset + 1));
  return raws.reverse().map((raw) => jobView(raw));
}

/** A sorted set's entries, earliest score first, from `offset` on. */
export async function setJobs({ redis, keys }: AdminContext, set: JobSet, limit: number, offset = 0): Promise<JobView[]> {
  if (limit === 0) return [];
  const flat = await redis.zrange(keys[set], offset, offset + limit - 1, 'WITHSCORES');
  const views: JobView[] = [];
  for (let i = 0; i < flat.length; i += 2) views.push(jobView(flat[i], Number(flat[i + 1])));
  return views;
}
