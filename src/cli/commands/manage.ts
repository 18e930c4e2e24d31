// `nexq retry`, `nexq kill`, `nexq delete` (jobs of the sets, by jid or --all) and `nexq show <jid>`.
// Every action prints, with --json, `{ count, jobs: [{ jid, from, to }] }` (docs/cli.md).
import { deleteJob, retryAll, retryJob } from '../../admin/actions';
import { findJob, Found } from '../../admin/find';
import { foundJobInfo } from '../../admin/job-info';
import { backtraceOf, isoOf, jobView } from '../../admin/job-view';
import { killAll, killJob } from '../../admin/kill';
import { positionAt, QueuedPosition } from '../../admin/position';
import { queuedLines } from './position';
import { ParsedArgs, UsageError } from '../args';
import { JobNotFoundError } from '../errors';
import { Command, CONNECTION_HELP, Output, positionals, printJson, printTable, withNexq } from './common';

const INDEX_NOTE =
  'The job index finds it at once; a job nexq never indexed (pushed by another producer) is searched for with ZSCAN.';

/** One job an action moved or removed: from a set to a queue name, 'dead', or null (deleted). */
export interface Moved {
  jid: string | null;
  from: string;
  to: string | null;
}

export function printMoved(out: Output, moved: Moved[], text: string): void {
  if (out.json) printJson(out, { count: moved.length, jobs: moved });
  else out.write(`${text}\n`);
}

/** `<jid>` or `--all`, not both. */
function jidOrAll(args: ParsedArgs, command: string): string | undefined {
  const all = args.flags.has('all');
  if (all && args.positional.length > 0) throw new UsageError('give a jid or --all, not both');
  return all ? undefined : positionals(args, command, ['jid'])[0];
}

export const retryCommand: Command = {
  summary: 'move a job (or --all) of the retry or dead set back to its queue now',
  flags: ['all', 'dead'],
  help: `Usage: nexq retry <jid> [options]
       nexq retry --all [--dead] [options]

Moves the job <jid> from the retry set (or the dead set) back to the front of its queue now, one
atomic step per job. --all does so for every job of the retry set (with --dead: of the dead set).
${INDEX_NOTE}

Options:
  --all                       every job of the retry set
  --dead                      with --all: every job of the dead set instead
${CONNECTION_HELP}`,
  async run(args, out) {
    const jid = jidOrAll(args, 'retry');
    if (jid !== undefined && args.flags.has('dead')) throw new UsageError('--dead goes with --all');
    const set = args.flags.has('dead') ? 'dead' : 'retry';
    const moved = await withNexq(args, async (session): Promise<Moved[]> => {
      if (jid === undefined) return (await retryAll(session, set)).map((m) => ({ jid: m.jid, from: set, to: m.queue }));
      const result = await retryJob(session, jid, ['retry', 'dead']);
      if (result.error !== undefined) throw new JobNotFoundError(result.error);
      return [{ jid, from: result.from, to: result.queue }];
    });
    printMoved(
      out,
      moved,
      jid === undefined ? `${moved.length} job(s) moved to their queues` : `${jid} moved to queue ${moved[0].to}`,
    );
    return 0;
  },
};

export const killCommand: Command = {
  summary: 'move a job (or --all) of the retry set to the dead set now',
  flags: ['all'],
  help: `Usage: nexq kill <jid> [options]
       nexq kill --all [options]

Moves the job <jid> from the retry set to the dead set now (Sidekiq's Kill): it will not be retried.
--all does so for every job of the retry set. ${INDEX_NOTE}

Options:
  --all                       every job of the retry set
${CONNECTION_HELP}`,
  async run(args, out) {
    const jid = jidOrAll(args, 'kill');
    const moved = await withNexq(args, async (session): Promise<Moved[]> => {
      if (jid === undefined)
        return (await killAll(session)).map((j) => ({ jid: j || null, from: 'retry', to: 'dead' }));
      const result = await killJob(session, jid);
      if (!result.killed) throw new JobNotFoundError(result.error);
      return [{ jid, from: 'retry', to: 'dead' }];
    });
    printMoved(out, moved, jid === undefined ? `${moved.length} job(s) moved to the dead set` : `${jid} moved to dead`);
    return 0;
  },
};

export const deleteCommand: Command = {
  summary: 'remove a job from the schedule, retry or dead set',
  help: `Usage: nexq delete <jid> [options]

Removes the job <jid> from the schedule, retry or dead set. Jobs waiting in a queue or running
are not touched (nexq clear empties a whole queue or set). ${INDEX_NOTE}

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [jid] = positionals(args, 'delete', ['jid']);
    const removed = await withNexq(args, async (session) => {
      const result = await deleteJob(session, jid, ['schedule', 'retry', 'dead']);
      if (result.error) throw new JobNotFoundError(result.error);
      return result.deletedFrom;
    });
    const moved = removed.map((from) => ({ jid, from, to: null }));
    printMoved(out, moved, `${jid} deleted from ${removed.join(', ') || 'nowhere (it moved meanwhile)'}`);
    return 0;
  },
};

function placeText(f: Found): string {
  if (f.where === 'queue') return `queue ${f.queue}`;
  if (f.where === 'running') return `running (backup list of node ${f.node}, queue ${f.queue})`;
  return `${f.where} (at ${isoOf(f.score)})`;
}

function positionText(position: QueuedPosition): string {
  return queuedLines(position)
    .map((line) => `  ${line}\n`)
    .join('');
}

export const showCommand: Command = {
  summary: 'where a job is (queue, schedule, retry, dead, running) and its payload',
  help: `Usage: nexq show <jid> [options]

Says where the job <jid> is (a queue, the schedule/retry/dead set, or running in a node's backup
list) and prints its payload; for a job waiting in a queue, the jobs ahead of it and its estimated
start too (nexq position). ${INDEX_NOTE} With --json, prints what the API's show() returns:
{ jid, state, queue, node, score, home, job, raw, deliveries, nacks, retryCount, errorBacktrace },
and for a waiting job \`position\`, what the API's position() returns.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [jid] = positionals(args, 'show', ['jid']);
    const { found, perQueue, ring, position } = await withNexq(args, async (session) => {
      const found = await findJob(session, jid);
      const first = found.length > 0 ? found[0] : undefined;
      // Where it stands, for a job waiting in a queue (undefined when it was fetched meanwhile).
      const position =
        first?.where === 'queue' && first.queue !== undefined
          ? await positionAt(session.nexq.node.ctx, jid, { queue: first.queue, raw: first.raw, member: first.member })
          : undefined;
      return { found, perQueue: session.keys.perQueue, ring: session.encryption?.ring, position };
    });
    if (found.length === 0) throw new JobNotFoundError(`no job ${jid} found (it may have finished)`);
    if (out.json) {
      const info = foundJobInfo(jid, found[0], perQueue, ring);
      printJson(out, position ? { ...info, position } : info);
      return 0;
    }
    for (const [i, f] of found.entries()) {
      const view = jobView(f.raw, f.score, ring);
      out.write(`${jid}: ${placeText(f)}\n`);
      if (i === 0 && position) out.write(positionText(position));
      const rows: Array<[string, string]> = [
        ['class', view.class ?? '?'],
        ['queue', view.queue ?? '?'],
        ['args', JSON.stringify(view.args)],
      ];
      if (view.error_class || view.error_message)
        rows.push(['error', `${view.error_class ?? ''}: ${view.error_message ?? ''}`]);
      printTable(out, ['FIELD', 'VALUE'], rows);
      const backtrace = backtraceOf(f.raw);
      if (backtrace) out.write(`backtrace:\n${backtrace.map((line) => `  ${line}\n`).join('')}`);
      out.write(`payload: ${f.raw}\n`);
    }
    return 0;
  },
};
