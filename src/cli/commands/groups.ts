// `nexq groups <queue>`: a fair queue's groups with their waiting, running and recently
// started jobs, and the limit holding each back as the live nodes serving the queue set it
// (src/admin/groups, src/admin/group-limits).
import { groupsOf, pauseGroup } from '../../admin/groups';
import { knownQueue } from './known-queue';
import { Command, CONNECTION_HELP, positionals, printJson, printTable, withNexq } from './common';

export const groupsCommand: Command = {
  summary: "a fair queue's groups: jobs waiting and running in each",
  help: `Usage: nexq groups <queue> [options]
       nexq groups pause <queue> <group> [options]
       nexq groups resume <queue> <group> [options]

Lists the groups of a fair queue (fair: true; docs/fair-queues.md), most jobs waiting first: the
jobs of each waiting in the queue's groups, its jobs running on all nodes as groupConcurrency
counts them (0 without it), whether it is paused, its jobs started in the last 15 minutes on all
nodes, and the limit that holds it back now (LIMITED, limited in --json): concurrency (running at
its groupConcurrency), rate (no room left in its groupRateLimit), or - (none). The limits are those
the live nodes serving the queue fair carry in their process entries, the strictest of each where
they differ; with no live node serving it fair none is known and LIMITED is - throughout. Jobs
still in the queue's list, not yet moved into their groups by a fetch, are counted by nexq queues,
not here. The default group (jobs without one) shows as (default).

pause stops every node starting the group's jobs (they keep their place; jobs running go on), resume
lifts it; give '' for the default group. A queue the live nodes serve, none of them fair, and
without groups is refused (exit 1, QUEUE_NOT_FAIR): its jobs run oldest first whatever their group.

Options:
${CONNECTION_HELP}`,
  async run(args, out) {
    const [first, queue, group] = args.positional;
    if ((first === 'pause' || first === 'resume') && args.positional.length === 3) {
      const pause = first === 'pause';
      const changed = await withNexq(args, async (session) => {
        await knownQueue(session, queue);
        return pauseGroup(session, queue, group, pause);
      });
      const name = group === '' ? '(default)' : group;
      if (out.json) printJson(out, { queue, group, paused: pause, changed });
      else out.write(`group ${name} of queue ${queue} ${first}d${changed ? '' : ' already'}\n`);
      return 0;
    }
    const [listed] = positionals(args, 'groups', ['queue']);
    const groups = await withNexq(args, async (session) => {
      await knownQueue(session, listed);
      return groupsOf(session, listed);
    });
    if (out.json) printJson(out, groups);
    else
      printTable(
        out,
        ['GROUP', 'WAITING', 'RUNNING', 'PAUSED', 'STARTED-15M', 'LIMITED'],
        groups.map((g) => [
          g.group === '' ? '(default)' : g.group,
          g.waiting,
          g.running,
          g.paused ? 'yes' : '-',
          g.started15m,
          g.limited ?? '-',
        ]),
      );
    return 0;
  },
};
