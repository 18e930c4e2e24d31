// Redis-side counting: INFO commandstats (calls per command, including the commands scripts run)
// and INFO stats total_reads_processed (socket reads: roughly the client round trips).
import type Redis from 'ioredis';

export interface RedisCounts {
  calls: Record<string, number>;
  reads: number;
}

/** Commands the bench itself sends while a workload is measured; they are not the library's. */
const BENCH_COMMANDS = new Set(['info']);

export async function redisCounts(redis: Redis): Promise<RedisCounts> {
  const [commandstats, stats] = await Promise.all([redis.info('commandstats'), redis.info('stats')]);
  const calls: Record<string, number> = {};
  for (const m of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  const reads = Number(/^total_reads_processed:(\d+)/m.exec(stats)?.[1] ?? NaN);
  return { calls, reads };
}

export interface CommandsPerJob {
  /** Sum of every command's calls (INFO excluded) divided by the jobs. */
  total: number;
  /** Socket reads per job, a proxy for round trips (a pipelined batch is usually one read). */
  reads: number;
  /** Calls per job by command, largest first. */
  byCommand: Record<string, number>;
}

export function perJob(before: RedisCounts, after: RedisCounts, jobs: number): CommandsPerJob {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [command, calls] of Object.entries(after.calls)) {
    if (BENCH_COMMANDS.has(command)) continue;
    const delta = calls - (before.calls[command] ?? 0);
    if (delta <= 0) continue;
    byCommand[command] = delta / jobs;
    total += delta;
  }
  const sorted = Object.fromEntries(Object.entries(byCommand).sort((a, b) => b[1] - a[1]));
  return { total: total / jobs, reads: (after.reads - before.reads) / jobs, byCommand: sorted };
}

/** Redis's resident memory as it reports it (INFO memory used_memory_rss), MB. */
export async function redisRssMb(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory_rss:(\d+)/m.exec(info)?.[1] ?? NaN) / 1024 / 1024;
}
