// After a run: where are the jobs? Every job must be done — none left in the queue or in the
// node's backup list, none in retry or dead — and the node's processed counter must say so.
import type Redis from 'ioredis';
import { keys, QUEUE } from './context';

export interface JobPlaces {
  queued: number;
  backup: number;
  retry: number;
  dead: number;
}

/** Where the jobs are, summed over `queues`. */
export async function jobPlaces(admin: Redis, nodeId: string, queues: string[] = [QUEUE]): Promise<JobPlaces> {
  const places: JobPlaces = { queued: 0, backup: 0, retry: 0, dead: 0 };
  for (const queue of queues) {
    const [queued, backup, retry, dead] = await Promise.all([
      admin.llen(keys.queue(queue)),
      admin.llen(keys.backup(nodeId, queue)),
      admin.zcard(keys.retry(queue)),
      admin.zcard(keys.dead(queue)),
    ]);
    places.queued += queued;
    places.backup += backup;
    places.retry += retry;
    places.dead += dead;
  }
  return places;
}

/** The node's `stat:processed` (flushed every second and at stop). */
export async function processedStat(admin: Redis): Promise<number> {
  return Number((await admin.get(keys.stat('processed'))) ?? 0);
}

/** Describes what is wrong, or returns undefined when all `expected` jobs were acked once. */
export function checkRun(
  what: string,
  expected: number,
  acked: number,
  failed: number,
  places: JobPlaces,
  processed?: number,
): string | undefined {
  const issues: string[] = [];
  if (acked !== expected) issues.push(`acked ${acked} of ${expected}`);
  if (failed > 0) issues.push(`${failed} failed`);
  if (places.queued || places.backup || places.retry || places.dead) {
    issues.push(
      `left in Redis: queue ${places.queued}, backup ${places.backup}, retry ${places.retry}, dead ${places.dead}`,
    );
  }
  if (processed !== undefined && processed !== expected) issues.push(`stat:processed is ${processed} after stop`);
  return issues.length ? `${what}: ${issues.join('; ')}` : undefined;
}
