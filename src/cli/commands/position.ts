// `nexq position <jid>`: where a job stands (src/admin/position.ts): the jobs ahead of it in its
// queue (and group) and its estimated start, or where it is when it is not waiting. `nexq show`
// prints the same lines for a waiting job.
import type { JobPosition, QueuedPosition } from '../../admin/position';
import { isoOf } from '../../admin/job-view';
import { RATE_MINUTES } from '../../redis/queue-metrics';
import { JobNotFoundError } from '../errors';
import { Command, CONNECTION_HELP, positionals, printJson, withNexq } from './common';

function groupName(group: string): string {
  return group === '' ? '(default)' : group;
}

function durationText(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}min`;
  return `${Math.round(s / 360) / 10}h`;
}

/** The lines `nexq show` and `nexq position` print for a job waiting in its queue. */
export function queuedLines(p: QueuedPosition): string[] {
  const count = `${p.atLeast ? 'at least ' : p.estimate ? '~' : ''}${p.aheadInQueue}`;
  const how = p.estimate ? ' (an estimate: groups take turns)' : '';
  const lines = [`ahead in queue ${p.queue}: ${count}${how}`];
  if (p.group !== undefined) lines.push(`ahead in group ${groupName(p.group)}: ${p.aheadInGroup ?? 0}`);
  lines.push(
    p.ratePerSecond === undefined
      ? `queue rate: unknown (no job of ${p.queue} ran in the last ${RATE_MINUTES} minutes)`
      : `queue rate: ${p.ratePerSecond} jobs/s (last ${RATE_MINUTES} minutes)`,
  );
  let start: string;
  if (p.paused) start = `not before queue ${p.queue} is resumed (it is paused)`;
  else if (p.groupPaused) start = `not before group ${groupName(p.group ?? '')} is resumed (it is paused)`;
  else if (p.estimatedStartMs === undefined) start = 'unknown';
  else start = `in ${p.atLeast ? 'at least ' : ''}${durationText(p.estimatedStartMs)} (${isoOf(p.estimatedStartAt)})`;
  lines.push(`estimated start: ${start}`);
  return lines;
}

/** What `nexq position` prints for any job. */
export function positionLines(p: JobPosition): string[] {
  switch (p.state) {
    case 'queued':
      return [`${p.jid}: waiting in queue ${p.queue}`, ...queuedLines(p)];
    case 'running':
      return [`${p.jid}: running on node ${p.node} (queue ${p.queue})`];
    case 'schedule':
      return [`${p.jid}: scheduled, to be enqueued at ${isoOf(p.at)}`];
    case 'retry':
      return [`${p.jid}: waiting for a retry at ${isoOf(p.at)}`];
    case 'dead':
      return [`${p.jid}: dead since ${isoOf(p.at)}`];
  }
}

export const positionCommand: Command = {
  summary: 'where a job stands: jobs ahead of it in its queue and group, estimated start',
  help: `Usage: nexq position <jid> [options]

For a job waiting in a queue, prints the jobs ahead of it (in its group too, in a fair queue, where
it is an estimate: groups take turns), its queue's rate over the last ${RATE_MINUTES} minutes and the
start that rate gives; for any other job, where it is (running on a node, scheduled, in retry,
dead). Found through the job index, as the API's position() does; --json prints what it returns.
docs/jobs.md says how each figure is read.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [jid] = positionals(args, 'position', ['jid']);
    const position = await withNexq(args, (session) => session.nexq.position(jid));
    if (!position) throw new JobNotFoundError(`no job ${jid} found (it may have finished)`);
    if (out.json) printJson(out, position);
    else out.write(positionLines(position).join('\n') + '\n');
    return 0;
  },
};
