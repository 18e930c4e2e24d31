// `nexq processes`: the live processes from `<ns>:processes` and each `<ns>:<identity>` hash;
// `nexq quiet` and `nexq stop` signal them as Sidekiq's API does.
import { readProcesses } from '../../admin/processes';
import { ProcessSignal, signalProcess } from '../../admin/signals';
import { UsageError } from '../args';
import { UnknownProcessError } from '../errors';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

export const processesCommand: Command = {
  summary: 'the live processes: busy, last beat, quiet, queues',
  help: `Usage: nexq processes [options]

Lists the processes in the processes set with their entry: hostname, pid, queues, concurrency,
busy jobs, last beat and whether they are quiet. A process whose entry expired (it stopped
without removing itself, as Exq does) is not listed.

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

function signalCommand(name: 'quiet' | 'stop', signal: ProcessSignal, what: string): Command {
  return {
    summary: `${what} a process (or --all), as Sidekiq's ${name}!`,
    flags: ['all'],
    help: `Usage: nexq ${name} <identity> [options]
       nexq ${name} --all [options]

Signals the process <identity> (see nexq processes) through Redis, as Sidekiq's Process#${name}!:
it takes the signal (${signal}) with its next beat, within one heartbeat interval, and then
${name === 'quiet' ? 'fetches no more jobs; those running finish' : 'stops gracefully, as on SIGTERM'}. nexq and Sidekiq processes alike.

Options:
  --all                       every live process
${CONNECTION_HELP}`,
    async run(args, out) {
      const all = args.flags.has('all');
      if (all && args.positional.length > 0) throw new UsageError('give an identity or --all, not both');
      const [identity] = all ? [] : positionals(args, name, ['identity']);
      const signalled = await withNexq(args, async (session) => {
        const targets = all ? (await readProcesses(session)).map((p) => p.identity) : [identity];
        const done: string[] = [];
        for (const target of targets) if (await signalProcess(session, target, signal)) done.push(target);
        if (!all && done.length === 0)
          throw new UnknownProcessError(`no live process ${JSON.stringify(identity)} (see nexq processes)`);
        return done;
      });
      if (out.json) printJson(out, { count: signalled.length, signal, processes: signalled });
      else out.write(`${signal} sent to ${signalled.length} process(es)${all ? '' : ` (${identity})`}\n`);
      return 0;
    },
  };
}

export const quietCommand = signalCommand('quiet', 'TSTP', 'quiet');
export const stopCommand = signalCommand('stop', 'TERM', 'stop');
