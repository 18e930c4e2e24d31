// Counters an operator watches: processed/failed (total, today, per day), queue sizes and latency,
// set sizes and the number of live processes.
import { statDay } from '../redis/keys';
import { queueInfo } from '../redis/queue-info';
import type { AdminContext } from './context';
import { jobSetSize } from '../redis/known-queues';
import { liveProcessEntries } from './processes';

export { queueInfo } from '../redis/queue-info';
export type { QueueInfo } from '../redis/queue-info';

export interface Stats {
  processed: number;
  failed: number;
  processed_today: number;
  failed_today: number;
  enqueued: number;
  queues: Record<string, number>;
  scheduled: number;
  retries: number;
  dead: number;
  processes: number;
}

export async function readStats(ctx: AdminContext): Promise<Stats> {
  const { redis, keys } = ctx;
  const day = statDay();
  const [processed, failed, processedToday, failedToday] = await redis.mget(
    keys.stat('processed'),
    keys.stat('failed'),
    keys.stat('processed', day),
    keys.stat('failed', day),
  );
  const configured = ctx.config.queues.map((q) => q.name);
  const [scheduled, retries, dead, processes] = await Promise.all([
    jobSetSize(redis, keys, 'schedule', configured),
    jobSetSize(redis, keys, 'retry', configured),
    jobSetSize(redis, keys, 'dead', configured),
    liveProcessEntries(ctx).then((live) => live.length),
  ]);
  const queues: Record<string, number> = {};
  for (const q of await queueInfo(ctx)) queues[q.queue] = q.size;
  return {
    processed: Number(processed ?? 0),
    failed: Number(failed ?? 0),
    processed_today: Number(processedToday ?? 0),
    failed_today: Number(failedToday ?? 0),
    enqueued: Object.values(queues).reduce((a, b) => a + b, 0),
    queues,
    scheduled,
    retries,
    dead,
    processes,
  };
}

export interface DayStats {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  processed: number;
  failed: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** Processed and failed per UTC day for the last `days` days (today included), oldest first. */
export async function readHistory({ redis, keys }: AdminContext, days: number, now = Date.now()): Promise<DayStats[]> {
  const dayNames = Array.from({ length: days }, (_, i) => statDay(new Date(now - (days - 1 - i) * DAY_MS)));
  if (dayNames.length === 0) return [];
  const values = await redis.mget(...dayNames.flatMap((d) => [keys.stat('processed', d), keys.stat('failed', d)]));
  return dayNames.map((day, i) => ({
    day,
    processed: Number(values[2 * i] ?? 0),
    failed: Number(values[2 * i + 1] ?? 0),
  }));
}
