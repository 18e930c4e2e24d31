// `nexq stats` and `nexq queues`: counters, queue sizes and latency, set sizes, process count.
import { pausedQueues } from '../../admin/pause';
import { queueInfo, readStats } from '../../admin/stats';
import { describeElsewhere, queuesUnderOtherNamespaces } from '../../redis/other-namespaces';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

export const statsCommand: Command = {
  summary: 'processed/failed counts, enqueued per queue, set sizes, processes',
  help: `Usage: nexq stats [options]

Prints processed and failed (all time and today, UTC), jobs enqueued per queue, the sizes of the
schedule, retry and dead sets, and how many processes are alive; and, in one line, the queues of
this namespace (and default) that hold jobs under another namespace (a Sidekiq producer's, with
none; Exq's exq), with the flag to set.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    positionals(args, 'stats', []);
    const { stats, elsewhere, namespace } = await withNexq(args, async (session) => ({
      stats: await readStats(session),
      // The queues this namespace knows, and `default`: those a node of it would serve.
      elsewhere: await queuesUnderOtherNamespaces(session.redis, session.keys, [
        'default',
        ...(await session.redis.smembers(session.keys.queues)),
      ]),
      namespace: session.keys.namespace,
    }));
    if (out.json) {
      printJson(out, { ...stats, otherNamespaces: elsewhere });
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
    if (elsewhere.length > 0)
      out.write(`\n${describeElsewhere(elsewhere, namespace, '--namespace (NEXQ_NAMESPACE)')}\n`);
    return 0;
  },
};

export const queuesCommand: Command = {
  summary: 'each queue with its size, latency and pause',
  help: `Usage: nexq queues [options]

Lists every queue with its size, its latency (seconds since the oldest job waiting was enqueued)
and whether it is paused (in, out or all; see nexq pause).

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    positionals(args, 'queues', []);
    const queues = await withNexq(args, async (session) => {
      const [infos, paused] = await Promise.all([queueInfo(session), pausedQueues(session)]);
      return infos.map((q) => ({ ...q, paused: Object.hasOwn(paused, q.queue) ? paused[q.queue] : null }));
    });
    if (out.json) printJson(out, queues);
    else
      printTable(
        out,
        ['QUEUE', 'SIZE', 'LATENCY', 'PAUSED'],
        queues.map((q) => [q.queue, q.size, `${q.latency.toFixed(1)}s`, q.paused ?? '-']),
      );
    return 0;
  },
};
