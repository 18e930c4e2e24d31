// `nexq retry <jid | --all>`, `nexq delete <jid>`, `nexq show <jid>`: act on one job by its jid.
import { rewriteMembers } from '../../job/json-members';
import { jsonTimestamp, nowSeconds } from '../../job/time';
import { enqueueDue } from '../../redis/scripts';
import { UsageError } from '../args';
import { Command, CONNECTION_HELP, isoOf, jobView, parseEntry, positionals, printJson, printTable, Session, withNexq } from './common';
import { findEverywhere, findInSets, Found } from './find';

const SCAN_NOTE = 'Redis has no index by jid: this scans the sets (ZSCAN), so it can take a while on a large Redis.';

/** Moves one retry/dead entry to its queue; the queue name, or undefined when it was gone. */
async function retryEntry(session: Session, found: Found): Promise<string | undefined> {
  const queue = parseEntry(found.raw)?.queue;
  if (typeof queue !== 'string' || queue === '') throw new UsageError(`job in ${found.where} has no queue to go back to`);
  const stamp = jsonTimestamp(nowSeconds(), session.nexq.node.ctx.config.timestamps);
  const { redis, keys } = session;
  const enqueued = rewriteMembers(found.raw, { enqueued_at: stamp });
  const jid = String(parseEntry(found.raw)?.jid ?? '');
  return (await enqueueDue(redis, keys, { source: found.key, queueKey: keys.queue(queue), queue, raw: found.raw, enqueued, jid })) ? queue : undefined;
}

async function retryAll(session: Session): Promise<Array<{ jid: string | null; queue: string }>> {
  const moved: Array<{ jid: string | null; queue: string }> = [];
  // Entries left behind stay at the front; read past them.
  let leftBehind = 0;
  for (;;) {
    const batch = await session.redis.zrange(session.keys.retry, leftBehind, leftBehind + 99);
    for (const raw of batch) {
      // An entry with no queue stays; the scheduler buries it in the dead set when it is due.
      const queue = await retryEntry(session, { where: 'retry', key: session.keys.retry, raw }).catch(() => undefined);
      if (queue) moved.push({ jid: (parseEntry(raw)?.jid as string) ?? null, queue });
      else leftBehind++;
    }
    if (batch.length < 100) return moved;
  }
}

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
      if (all) return retryAll(session);
      const found = await findInSets(session, jid, ['retry', 'dead']);
      if (found.length === 0) throw new Error(`no job ${jid} in the retry or dead set`);
      const queue = await retryEntry(session, found[0]);
      if (!queue) throw new Error(`job ${jid} left the ${found[0].where} set before it could be moved`);
      return [{ jid, queue, from: found[0].where }];
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
      const found = await findInSets(session, jid);
      if (found.length === 0) throw new Error(`no job ${jid} in the schedule, retry or dead set`);
      const from: string[] = [];
      for (const f of found) if ((await session.redis.zrem(f.key, f.raw)) === 1) from.push(f.where);
      return from;
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
    const found = await withNexq(args, (session) => findEverywhere(session, jid));
    if (found.length === 0) throw new Error(`no job ${jid} found (it may have finished)`);
    if (out.json) {
      printJson(out, found.map((f) => ({ where: f.where, queue: f.queue ?? null, node: f.node ?? null, at: isoOf(f.score), key: f.key, job: parseEntry(f.raw) ?? f.raw })));
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
      if (view.error_class || view.error_message) rows.push(['error', `${view.error_class ?? ''}: ${view.error_message ?? ''}`]);
      printTable(out, ['FIELD', 'VALUE'], rows);
      out.write(`payload: ${f.raw}\n`);
    }
    return 0;
  },
};
