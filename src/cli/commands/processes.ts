// `nexq processes`: the live processes from `<ns>:processes` and each `<ns>:<identity>` hash.
import { isoOf, Command, CONNECTION_HELP, parseEntry, positionals, printJson, printTable, Session, withNexq } from './common';

export interface ProcessView {
  identity: string;
  hostname: string | null;
  pid: number | null;
  queues: unknown;
  concurrency: number | null;
  busy: number;
  beat: string | null;
  quiet: boolean;
  started_at: string | null;
  info: Record<string, unknown> | null;
}

async function readProcesses({ redis, keys }: Session): Promise<ProcessView[]> {
  const identities = (await redis.smembers(keys.processes)).sort();
  const views: ProcessView[] = [];
  for (const identity of identities) {
    const hash = await redis.hgetall(keys.process(identity));
    const info = hash.info ? parseEntry(hash.info) ?? null : null;
    const num = (v: unknown) => (typeof v === 'number' ? v : null);
    views.push({
      identity,
      hostname: typeof info?.hostname === 'string' ? info.hostname : null,
      pid: num(info?.pid),
      queues: info?.queues ?? null,
      concurrency: num(info?.concurrency),
      busy: Number(hash.busy ?? 0),
      beat: hash.beat ? isoOf(Number(hash.beat)) : null,
      quiet: hash.quiet === 'true',
      started_at: isoOf(num(info?.started_at) ?? undefined),
      info,
    });
  }
  return views;
}

export const processesCommand: Command = {
  summary: 'the live processes: busy, last beat, quiet, queues',
  help: `Usage: nexq processes [options]

Lists the processes in the processes set with their entry: hostname, pid, queues, concurrency,
busy jobs, last beat and whether they are quiet. A process whose entry expired shows no beat.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    positionals(args, 'processes', []);
    const views = await withNexq(args, readProcesses);
    if (out.json) printJson(out, views);
    else
      printTable(
        out,
        ['IDENTITY', 'BUSY', 'CONCURRENCY', 'BEAT', 'QUIET', 'QUEUES'],
        views.map((p) => [p.identity, p.busy, p.concurrency ?? '-', p.beat ?? '-', p.quiet ? 'yes' : 'no', Array.isArray(p.queues) ? p.queues.join(',') : '-']),
      );
    return 0;
  },
};
