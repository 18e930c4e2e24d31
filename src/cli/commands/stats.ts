// `nexq stats` and `nexq queues`: counters, queue sizes and latency, set sizes, process count.
import { queueInfo, readStats } from '../../admin/stats';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

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
    else
      printTable(
        out,
        ['QUEUE', 'SIZE', 'LATENCY'],
        queues.map((q) => [q.queue, q.size, `${q.latency.toFixed(1)}s`]),
      );
    return 0;
  },
};
