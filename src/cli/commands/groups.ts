// `nexq groups <queue>`: a fair queue's groups with their waiting and running jobs (src/admin/groups).
import { groupsOf } from '../../admin/groups';
import { knownQueue } from './known-queue';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

export const groupsCommand: Command = {
  summary: "a fair queue's groups: jobs waiting and running in each",
  help: `Usage: nexq groups <queue> [options]

Lists the groups of a fair queue (fair: true; docs/fair-queues.md), most jobs waiting first: the
jobs of each waiting in the queue's groups, and its jobs running on all nodes as groupConcurrency
counts them (0 without it). Jobs still in the queue's list, not yet moved into their groups by a
fetch, are counted by nexq queues, not here. The default group (jobs without one) shows as (default).

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [queue] = positionals(args, 'groups', ['queue']);
    const groups = await withNexq(args, async (session) => {
      await knownQueue(session, queue);
      return groupsOf(session, queue);
    });
    if (out.json) printJson(out, groups);
    else
      printTable(
        out,
        ['GROUP', 'WAITING', 'RUNNING'],
        groups.map((g) => [g.group === '' ? '(default)' : g.group, g.waiting, g.running]),
      );
    return 0;
  },
};
