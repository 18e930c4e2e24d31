// `nexq jobs <queue>`, `nexq scheduled`, `nexq retries`, `nexq dead`: list jobs, oldest first.
import type { ParsedArgs } from '../args';
import { clip, Command, CONNECTION_HELP, jobView, JobView, Output, positionals, printJson, printTable, Session, wholeNumber, withNexq } from './common';

const DEFAULT_LIMIT = 50;
const LIMIT_HELP = `  --limit N         show at most N jobs (default ${DEFAULT_LIMIT})`;

const argsText = (v: JobView) => clip(v.args === null ? v.raw ?? '' : JSON.stringify(v.args), 50);

/** The jobs waiting in `queue`, the next to run (the list's right end) first. */
async function queueJobs({ redis, keys }: Session, queue: string, limit: number): Promise<JobView[]> {
  if (limit === 0) return [];
  const raws = await redis.lrange(keys.queue(queue), -limit, -1);
  return raws.reverse().map((raw) => jobView(raw));
}

/** A sorted set's entries, earliest score first. */
async function setJobs(redis: Session['redis'], key: string, limit: number): Promise<JobView[]> {
  if (limit === 0) return [];
  const flat = await redis.zrange(key, 0, limit - 1, 'WITHSCORES');
  const views: JobView[] = [];
  for (let i = 0; i < flat.length; i += 2) views.push(jobView(flat[i], Number(flat[i + 1])));
  return views;
}

function printQueueJobs(out: Output, views: JobView[]): void {
  if (out.json) printJson(out, views);
  else printTable(out, ['JID', 'CLASS', 'ENQUEUED AT', 'ARGS'], views.map((v) => [v.jid ?? '?', v.class ?? '?', v.enqueued_at ?? '-', argsText(v)]));
}

function printSetJobs(out: Output, views: JobView[], withErrors: boolean): void {
  if (out.json) printJson(out, views);
  else if (withErrors) {
    printTable(
      out,
      ['JID', 'CLASS', 'QUEUE', 'AT', 'RETRIES', 'ERROR', 'ARGS'],
      views.map((v) => [v.jid ?? '?', v.class ?? '?', v.queue ?? '?', v.at ?? '-', v.retry_count ?? '-', clip(`${v.error_class ?? ''}: ${v.error_message ?? ''}`, 50), argsText(v)]),
    );
  } else printTable(out, ['JID', 'CLASS', 'QUEUE', 'AT', 'ARGS'], views.map((v) => [v.jid ?? '?', v.class ?? '?', v.queue ?? '?', v.at ?? '-', argsText(v)]));
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
    const limit = wholeNumber(args, 'limit', DEFAULT_LIMIT);
    printQueueJobs(out, await withNexq(args, (s) => queueJobs(s, queue, limit)));
    return 0;
  },
};

function setCommand(name: string, what: string, key: (s: Session) => string, withErrors: boolean): Command {
  return {
    summary: `list the ${what}`,
    flags: ['limit'],
    help: `Usage: nexq ${name} [options]

Lists the ${what}, earliest first: jid, class, queue, when (the set's score as an ISO time)${withErrors ? ', retry count and error' : ''}, args.

Options:
${LIMIT_HELP}
${CONNECTION_HELP}`,
    async run(args: ParsedArgs, out: Output) {
      positionals(args, name, []);
      const limit = wholeNumber(args, 'limit', DEFAULT_LIMIT);
      printSetJobs(out, await withNexq(args, (s) => setJobs(s.redis, key(s), limit)), withErrors);
      return 0;
    },
  };
}

export const scheduledCommand = setCommand('scheduled', 'jobs scheduled to run later (the schedule set)', (s) => s.keys.schedule, false);
export const retriesCommand = setCommand('retries', 'failed jobs waiting to be retried (the retry set)', (s) => s.keys.retry, true);
export const deadCommand = setCommand('dead', 'jobs out of retries (the dead set)', (s) => s.keys.dead, true);
