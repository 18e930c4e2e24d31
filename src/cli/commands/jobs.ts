// `nexq jobs <queue>`, `nexq scheduled`, `nexq retries`, `nexq dead`: list jobs, oldest first.
import type { ParsedArgs } from '../args';
import type { JobSet } from '../../admin/context';
import type { JobView } from '../../admin/job-view';
import { queueJobs, setJobs } from '../../admin/listing';
import {
  clip,
  Command,
  CONNECTION_HELP,
  Output,
  positionals,
  printJson,
  printTable,
  wholeNumber,
  withNexq,
} from './common';
import { knownQueue } from './known-queue';

const DEFAULT_LIMIT = 50;
const LIMIT_HELP = `  --limit N                   show at most N jobs (default ${DEFAULT_LIMIT}; 0: all)`;
/** `--limit 0` lists everything: Redis clamps a range's end to the list's. */
const ALL = 2 ** 31;

function limitOf(args: ParsedArgs): number {
  return wholeNumber(args, 'limit', DEFAULT_LIMIT) || ALL;
}

const argsText = (v: JobView) => clip(v.args === null ? (v.raw ?? '') : JSON.stringify(v.args), 50);

function printQueueJobs(out: Output, views: JobView[]): void {
  if (out.json) printJson(out, views);
  else
    printTable(
      out,
      ['JID', 'CLASS', 'ENQUEUED AT', 'ARGS'],
      views.map((v) => [v.jid ?? '?', v.class ?? '?', v.enqueued_at ?? '-', argsText(v)]),
    );
}

function printSetJobs(out: Output, views: JobView[], withErrors: boolean): void {
  if (out.json) printJson(out, views);
  else if (withErrors) {
    printTable(
      out,
      ['JID', 'CLASS', 'QUEUE', 'AT', 'RETRIES', 'ERROR', 'ARGS'],
      views.map((v) => [
        v.jid ?? '?',
        v.class ?? '?',
        v.queue ?? '?',
        v.at ?? '-',
        v.retry_count ?? '-',
        clip(`${v.error_class ?? ''}: ${v.error_message ?? ''}`, 50),
        argsText(v),
      ]),
    );
  } else
    printTable(
      out,
      ['JID', 'CLASS', 'QUEUE', 'AT', 'ARGS'],
      views.map((v) => [v.jid ?? '?', v.class ?? '?', v.queue ?? '?', v.at ?? '-', argsText(v)]),
    );
}

export const jobsCommand: Command = {
  summary: 'list the jobs waiting in a queue, next to run first',
  flags: ['limit'],
  help: `Usage: nexq jobs <queue> [options]

Lists the jobs waiting in <queue>, the next to run first: jid, class, enqueued_at, args.

Options:
${LIMIT_HELP}
${CONNECTION_HELP}`,
  async run(args, out) {
    const [queue] = positionals(args, 'jobs', ['queue']);
    const limit = limitOf(args);
    const views = await withNexq(args, async (s) => {
      await knownQueue(s, queue);
      return queueJobs(s, queue, limit);
    });
    printQueueJobs(out, views);
    return 0;
  },
};

function setCommand(name: string, what: string, set: JobSet, withErrors: boolean): Command {
  return {
    summary: `list the ${what}`,
    flags: ['limit'],
    help: `Usage: nexq ${name} [options]

Lists the ${what}, earliest first: jid, class, queue,
when (the set's score as an ISO time)${withErrors ? ', retry count and error' : ''}, args.

Options:
${LIMIT_HELP}
${CONNECTION_HELP}`,
    async run(args: ParsedArgs, out: Output) {
      positionals(args, name, []);
      const limit = limitOf(args);
      printSetJobs(out, await withNexq(args, (s) => setJobs(s, set, limit)), withErrors);
      return 0;
    },
  };
}

export const scheduledCommand = setCommand(
  'scheduled',
  'jobs scheduled to run later (the schedule set)',
  'schedule',
  false,
);
export const retriesCommand = setCommand('retries', 'failed jobs waiting to be retried (the retry set)', 'retry', true);
export const deadCommand = setCommand('dead', 'jobs out of retries (the dead set)', 'dead', true);
