// `nexq pause <queue> [--mode in|out|all]` and `nexq resume <queue>`, through src/admin/pause.
import { pausedQueues, pauseQueue, PAUSE_MODES, PauseMode, resumeQueue } from '../../admin/pause';
import { UsageError } from '../args';
import { Command, CONNECTION_HELP, flagText, positionals, printJson, withNexq } from './common';

export const pauseCommand: Command = {
  summary: 'pause a queue on every node (--mode in|out|all)',
  flags: ['mode'],
  help: `Usage: nexq pause <queue> [options]

Pauses <queue> on every node: 'in' refuses enqueues, 'out' stops every node fetching from it,
'all' (the default) both. Jobs already running finish.

Options:
  --mode in|out|all           what to pause (default all)
${CONNECTION_HELP}`,
  async run(args, out) {
    const [queue] = positionals(args, 'pause', ['queue']);
    const mode = (flagText(args, 'mode') ?? 'all') as PauseMode;
    if (!PAUSE_MODES.includes(mode)) throw new UsageError(`--mode must be in, out or all, got ${JSON.stringify(mode)}`);
    const paused = await withNexq(args, async (session) => {
      await pauseQueue(session, queue, mode);
      return pausedQueues(session);
    });
    if (out.json) printJson(out, { queue, mode, paused });
    else out.write(`queue ${queue} paused (${mode})\n`);
    return 0;
  },
};

export const resumeCommand: Command = {
  summary: 'resume a paused queue',
  help: `Usage: nexq resume <queue> [options]

Lifts a pause of <queue> on every node.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [queue] = positionals(args, 'resume', ['queue']);
    const { was, paused } = await withNexq(args, async (session) => {
      const before: Partial<Record<string, PauseMode>> = await pausedQueues(session);
      const was = before[queue];
      await resumeQueue(session, queue);
      return { was, paused: await pausedQueues(session) };
    });
    if (out.json) printJson(out, { queue, was_paused: was ?? null, paused });
    else out.write(was ? `queue ${queue} resumed\n` : `queue ${queue} was not paused\n`);
    return 0;
  },
};
