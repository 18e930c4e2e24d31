// `nexq clear <queue>` and `nexq clear --set schedule|retry|dead`: empty a whole queue or set, after
// a y/N question on a terminal, or at once with --yes (required when stdin is not a terminal).
import readline from 'node:readline/promises';
import { clearJobSet, clearQueue } from '../../admin/clear';
import { isJobSet, JOB_SETS } from '../../admin/context';
import { UsageError } from '../args';
import { Command, CONNECTION_HELP, flagText, positionals, printJson, withNexq } from './common';
import { knownQueue } from './known-queue';

async function confirmed(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export const clearCommand: Command = {
  summary: 'empty a queue, or a set with --set schedule|retry|dead (asks first; --yes)',
  flags: ['set', 'yes'],
  help: `Usage: nexq clear <queue> [options]
       nexq clear --set schedule|retry|dead [options]

Removes every job waiting in <queue>, or every entry of the schedule, retry or dead set, each
list or set in one atomic step; their unique locks are let go. Jobs already running are not
touched. Asks for confirmation on a terminal; --yes skips the question and is required otherwise.

Options:
  --set NAME                  the schedule, retry or dead set instead of a queue
  --yes                       do not ask
${CONNECTION_HELP}`,
  async run(args, out) {
    const set = flagText(args, 'set');
    if (set !== undefined && !isJobSet(set))
      throw new UsageError(`--set must be one of ${JOB_SETS.join(', ')}, got ${JSON.stringify(set)}`);
    const [queue] = set === undefined ? positionals(args, 'clear', ['queue']) : positionals(args, 'clear', []);
    const what = set === undefined ? `queue ${queue}` : `the ${set} set`;
    if (!args.flags.has('yes')) {
      if (!process.stdin.isTTY) throw new UsageError(`clearing ${what} needs --yes when stdin is not a terminal`);
      if (!(await confirmed(`Remove every job of ${what}?`))) {
        out.write('nothing removed\n');
        return 1;
      }
    }
    const count = await withNexq(args, async (session) => {
      if (set !== undefined) return clearJobSet(session, set);
      await knownQueue(session, queue);
      return clearQueue(session, queue);
    });
    if (out.json) printJson(out, set === undefined ? { count, queue } : { count, set });
    else out.write(`${count} job(s) removed from ${what}\n`);
    return 0;
  },
};
