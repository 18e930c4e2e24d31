// `nexq stats` and `nexq queues`: counters, queue sizes and latency, set sizes, process count.
import { statDay } from '../../redis/keys';
import { queueInfo } from '../../redis/queue-info';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, Session, withNexq } from './common';

export { queueInfo } from '../../redis/queue-info';
export type { QueueInfo } from '../../redis/queue-info';

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

export async function readStats(session: Session): Promise<Stats> {
  const { redis, keys } = session;
  const day = statDay();
  const [processed, failed, processedToday, failedToday] = await redis.mget(keys.stat('processed'), keys.stat('failed'), keys.stat('processed', day), keys.stat('failed', day));
  const [scheduled, retries, dead, processes] = await Promise.all([redis.zcard(keys.schedule), redis.zcard(keys.retry), redis.zcard(keys.dead), redis.scard(keys.processes)]);
  const queues: Record<string, number> = {};
  for (const q of await queueInfo(session)) queues[q.queue] = q.size;
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

export const statsCommand: Command = {
  summary: 'processed/failed counts, enqueued per queue, set sizes, processes',
  help: `Usage: nexq stats [options]

Prints processed and failed (all time and today, UTC), jobs enqueued per queue, the sizes of the
schedule, retry and dead sets, and how many processes are alive.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    positionals(args, 'stats', []);
    const stats = await withNexq(args, readStats);
    if (out.json) {
      printJson(out, stats);
      return 0;
    }
    const rows: Array<[string, number]> = [
      ['processed', stats.processed],
      ['failed', stats.failed],
      ['processed today', stats.processed_today],
      ['failed today', stats.failed_today],
      ['enqueued', stats.enqueued],
      ...Object.entries(stats.queues).map(([q, n]): [string, number] => [`  queue ${q}`, n]),
      ['scheduled', stats.scheduled],
      ['retries', stats.retries],
      ['dead', stats.dead],
      ['processes', stats.processes],
    ];
    printTable(out, ['STAT', 'VALUE'], rows);
    return 0;
  },
};

export const queuesCommand: Command = {
  summary: 'each queue with its size and latency',
  help: `Usage: nexq queues [options]

Lists every queue with its size and latency: seconds since the oldest job waiting was enqueued.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    positionals(args, 'queues', []);
    const queues = await withNexq(args, (session) => queueInfo(session));
    if (out.json) printJson(out, queues);
    else printTable(out, ['QUEUE', 'SIZE', 'LATENCY'], queues.map((q) => [q.queue, q.size, `${q.latency.toFixed(1)}s`]));
    return 0;
  },
};
