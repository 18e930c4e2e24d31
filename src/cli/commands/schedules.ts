// `nexq schedules` (list), `nexq schedules set <name> <cron> <queue> <class> [--args JSON] [--tz ZONE]`
// and `nexq schedules remove <name>`: the schedules set at run time, through src/admin/schedules.
import { isoInZone } from '../../../config/cron-zone';
import { ScheduleError, Schedules } from '../../admin/schedules';
import { UsageError } from '../args';
import { unsafeIntegerIn } from '../json-numbers';
import { clip, Command, CONNECTION_HELP, flagText, printJson, printTable, withNexq } from './common';

function parseArgsFlag(text: string | undefined): unknown[] {
  if (text === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--args must be a JSON array, got ${JSON.stringify(text)}`);
  }
  if (!Array.isArray(value)) throw new UsageError(`--args must be a JSON array, got ${JSON.stringify(text)}`);
  const unsafe = unsafeIntegerIn(text, value, 'args');
  if (unsafe) throw new UsageError(`--args: ${unsafe}`);
  return value;
}

export const schedulesCommand: Command = {
  summary: 'list, set or remove periodic jobs set at run time',
  flags: ['args', 'tz'],
  help: `Usage: nexq schedules [options]
       nexq schedules set <name> <cron> <queue> <class> [--args JSON] [--tz ZONE] [options]
       nexq schedules remove <name> [options]

Lists the schedules kept in Redis (not the 'periodic' option's, which are each node's own) with
their next and last run on the schedule's own zone (ISO 8601 with the offset); sets one (every node runs it within a second, each tick once across nodes); or
removes one.

Options:
  --args JSON       the job's args, a JSON array (default [])
  --tz ZONE         IANA time zone whose wall clock the cron reads (default UTC)
${CONNECTION_HELP}`,
  async run(args, out) {
    const [action = 'list', ...rest] = args.positional;
    const usage = () => new UsageError(`usage: nexq schedules [set <name> <cron> <queue> <class> | remove <name>]`);
    return withNexq(args, async (session) => {
      const schedules = new Schedules(session);
      if (action === 'list' && rest.length === 0) {
        const listed = await schedules.list();
        if (out.json) printJson(out, listed);
        else
          printTable(
            out,
            ['NAME', 'CRON', 'TZ', 'QUEUE', 'CLASS', 'NEXT RUN', 'LAST RUN', 'ARGS'],
            // On the schedule's own wall clock, as its cron reads it, with the offset.
            listed.map((s) => [
              s.name,
              s.cron,
              s.tz ?? 'UTC',
              s.queue,
              s.class,
              s.nextRunAt ? isoInZone(s.nextRunAt, s.tz) : '-',
              s.lastRunAt ? isoInZone(s.lastRunAt, s.tz) : '-',
              clip(JSON.stringify(s.args)),
            ]),
          );
        return 0;
      }
      if (action === 'set' && rest.length === 4) {
        const [name, cron, queue, className] = rest;
        const tz = flagText(args, 'tz');
        const spec = {
          cron,
          queue,
          class: className,
          args: parseArgsFlag(flagText(args, 'args')),
          ...(tz ? { tz } : {}),
        };
        try {
          await schedules.set(name, spec);
        } catch (err) {
          if (err instanceof ScheduleError) throw new UsageError(err.message);
          throw err;
        }
        if (out.json) printJson(out, { name, ...spec });
        else out.write(`schedule ${name} set\n`);
        return 0;
      }
      if (action === 'remove' && rest.length === 1) {
        const removed = await schedules.remove(rest[0]);
        if (out.json) printJson(out, { name: rest[0], removed });
        else out.write(removed ? `schedule ${rest[0]} removed\n` : `no schedule ${rest[0]}\n`);
        return removed ? 0 : 1;
      }
      throw usage();
    });
  },
};
