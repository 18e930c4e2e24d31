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

export async function jobPlaces(admin: Redis, nodeId: string): Promise<JobPlaces> {
  const [queued, backup, retry, dead] = await Promise.all([
    admin.llen(keys.queue(QUEUE)),
    admin.llen(keys.backup(nodeId, QUEUE)),
    admin.zcard(keys.retry(QUEUE)),
    admin.zcard(keys.dead(QUEUE)),
  ]);
  return { queued, backup, retry, dead };
}

/** The node's `stat:processed` (flushed every second and at stop). */
export async function processedStat(admin: Redis): Promise<number> {
  return Number((await admin.get(keys.stat('processed'))) ?? 0);
}

/** Describes what is wrong, or returns undefined when all `expected` jobs were acked once. */
export function checkRun(what: string, expected: number, acked: number, failed: number, places: JobPlaces, processed?: number): string | undefined {
  const issues: string[] = [];
  if (acked !== expected) issues.push(`acked ${acked} of ${expected}`);
  if (failed > 0) issues.push(`${failed} failed`);
  if (places.queued || places.backup || places.retry || places.dead) {
    issues.push(`left in Redis: queue ${places.queued}, backup ${places.backup}, retry ${places.retry}, dead ${places.dead}`);
  }
  if (processed !== undefined && processed !== expected) issues.push(`stat:processed is ${processed} after stop`);
  return issues.length ? `${what}: ${issues.join('; ')}` : undefined;
}
