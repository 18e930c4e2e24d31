// `nexq processes`: the live processes from `<ns>:processes` and each `<ns>:<identity>` hash.
import { readProcesses } from '../../admin/processes';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

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
        ['IDENTITY', 'BUSY', 'RESERVED', 'CONCURRENCY', 'BEAT', 'QUIET', 'QUEUES'],
        views.map((p) => [
          p.identity,
          p.busy,
          p.reserved,
          p.concurrency ?? '-',
          p.beat ?? '-',
          p.quiet ? 'yes' : 'no',
          Array.isArray(p.queues) ? p.queues.join(',') : '-',
        ]),
      );
    return 0;
  },
};
