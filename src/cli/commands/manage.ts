// `nexq retry <jid | --all>`, `nexq delete <jid>`, `nexq show <jid>`: act on one job by its jid.
import { deleteJob, retryAll, retryJob } from '../../admin/actions';
import { findJob, Found } from '../../admin/find';
import { backtraceOf, isoOf, jobView } from '../../admin/job-view';
import { jsonObject } from '../../job/json-object';
import { UsageError } from '../args';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

const SCAN_NOTE =
  'The job index finds it at once; a job nexq never indexed (pushed by another producer) is searched for with ZSCAN.';

export const retryCommand: Command = {
  summary: 'move a job (or --all) from the retry or dead set back to its queue now',
  flags: ['all'],
  help: `Usage: nexq retry <jid> [options]
       nexq retry --all [options]

Moves the job <jid> from the retry set (or the dead set) back to the front of its queue now, one
atomic step per job. --all does so for every job in the retry set. ${SCAN_NOTE}

Options:
  --all             every job in the retry set
${CONNECTION_HELP}`,
  async run(args, out) {
    const all = args.flags.has('all');
    if (all && args.positional.length > 0) throw new UsageError('give a jid or --all, not both');
    const [jid] = all ? [] : positionals(args, 'retry', ['jid']);
    const moved = await withNexq(args, async (session) => {
      if (all) return retryAll(session, 'retry');
      const result = await retryJob(session, jid, ['retry', 'dead']);
      if (result.error !== undefined) throw new Error(result.error);
      return [{ jid, queue: result.queue, from: result.from }];
    });
    if (out.json) printJson(out, moved);
    else if (all) out.write(`${moved.length} job(s) moved to their queues\n`);
    else out.write(`${jid} moved to queue ${moved[0].queue}\n`);
    return 0;
  },
};

export const deleteCommand: Command = {
  summary: 'remove a job from the schedule, retry or dead set',
  help: `Usage: nexq delete <jid> [options]

Removes the job <jid> from the schedule, retry or dead set. Jobs waiting in a queue or running
are not touched. ${SCAN_NOTE}

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [jid] = positionals(args, 'delete', ['jid']);
    const removed = await withNexq(args, async (session) => {
      const result = await deleteJob(session, jid, ['schedule', 'retry', 'dead']);
      if (result.error) throw new Error(result.error);
      return result.deletedFrom;
    });
    if (out.json) printJson(out, { jid, deleted_from: removed });
    else out.write(`${jid} deleted from ${removed.join(', ') || 'nowhere (it moved meanwhile)'}\n`);
    return 0;
  },
};

function placeText(f: Found): string {
  if (f.where === 'queue') return `queue ${f.queue}`;
  if (f.where === 'running') return `running (backup list of node ${f.node}, queue ${f.queue})`;
  return `${f.where} (at ${isoOf(f.score)})`;
}

export const showCommand: Command = {
  summary: 'where a job is (queue, schedule, retry, dead, running) and its payload',
  help: `Usage: nexq show <jid> [options]

Says where the job <jid> is (a queue, the schedule/retry/dead set, or running in a node's backup
list) and prints its payload. Redis has no index by jid: this scans every queue (LRANGE), the
sets (ZSCAN) and the backup lists (SCAN), so it can take a while on a large Redis.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [jid] = positionals(args, 'show', ['jid']);
    const found = await withNexq(args, (session) => findJob(session, jid));
    if (found.length === 0) throw new Error(`no job ${jid} found (it may have finished)`);
    if (out.json) {
      printJson(
        out,
        found.map((f) => ({
          where: f.where,
          queue: f.queue ?? null,
          node: f.node ?? null,
          at: isoOf(f.score),
          key: f.key,
          job: jsonObject(f.raw) ?? f.raw,
          backtrace: backtraceOf(f.raw),
        })),
      );
      return 0;
    }
    for (const f of found) {
      const view = jobView(f.raw, f.score);
      out.write(`${jid}: ${placeText(f)}\n`);
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
