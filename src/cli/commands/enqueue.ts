// `nexq enqueue <queue> <class> [json-args] [--in SECONDS | --at ISO]`: prints the new job's jid.
import { isQueueName } from '../../../config/queue-options';
import { readServing, unservedReasons } from '../../redis/live-serving';
import { UsageError } from '../args';
import { isoOfSeconds, LATEST_DATE_SECONDS } from '../../job/time';
import { unsafeIntegerIn } from '../json-numbers';
import { Command, CONNECTION_HELP, flagText, positionals, printJson, withNexq } from './common';

function parseJsonArgs(text: string | undefined): unknown[] {
  if (text === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`json-args must be a JSON array: ${(err as Error).message}`);
  }
  if (!Array.isArray(value))
    throw new UsageError(`json-args must be a JSON array, got ${value === null ? 'null' : typeof value}`);
  // The check walks the value: a nesting deeper than the stack allows is refused, as JSON.parse took it.
  let unsafe: string | undefined;
  try {
    unsafe = unsafeIntegerIn(text, value, 'args');
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError('json-args is nested too deeply');
    throw err;
  }
  if (unsafe) throw new UsageError(`json-args: ${unsafe}`);
  return value;
}

function parseWhen(inText: string | undefined, atText: string | undefined): { in?: number; at?: Date } {
  if (inText !== undefined && atText !== undefined) throw new UsageError('give --in or --at, not both');
  if (inText !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(inText))
      throw new UsageError(`--in must be a number of seconds, got ${JSON.stringify(inText)}`);
    if (Date.now() / 1000 + Number(inText) > LATEST_DATE_SECONDS)
      throw new UsageError(`--in ${inText} is past the latest time a date can hold (year 275760)`);
    return { in: Number(inText) };
  }
  if (atText !== undefined) {
    const at = new Date(atText);
    if (!/^\d{4}-\d\d-\d\d/.test(atText) || Number.isNaN(at.getTime()))
      throw new UsageError(`--at must be an ISO 8601 time, got ${JSON.stringify(atText)}`);
    return { at };
  }
  return {};
}

export const enqueueCommand: Command = {
  summary: 'enqueue a job now, --in SECONDS or --at ISO; prints its jid',
  flags: ['in', 'at'],
  help: `Usage: nexq enqueue <queue> <class> [json-args] [options]

Enqueues a job of <class> on <queue> and prints its jid. json-args is a JSON array (default []),
e.g. '[1, "two", {"three": 3}]'. A whole number past 2^53 (9007199254740991) is refused, as
JSON would round it: pass it as a string ("9007199254740993"). When no live node serves <queue>, or none of those serving it
has a handler for <class>, a warning on stderr says so (with the closest name); the job is
enqueued all the same.

Options:
  --in SECONDS                run that many seconds from now (goes to the schedule set)
  --at ISO                    run at that time, e.g. 2030-01-01T12:00:00Z
${CONNECTION_HELP}`,
  async run(args, out) {
    const [queue, className, argsText] = positionals(args, 'enqueue', ['queue', 'class', 'json-args'], 1);
    if (!isQueueName(queue))
      throw new UsageError(`queue name ${JSON.stringify(queue)} is not valid (no spaces or colons)`);
    const jobArgs = parseJsonArgs(argsText);
    const when = parseWhen(flagText(args, 'in'), flagText(args, 'at'));
    const { jid, warnings } = await withNexq(args, async ({ nexq, redis, keys }) => ({
      jid: await (when.at
        ? nexq.enqueueAt(queue, when.at, className, jobArgs)
        : when.in !== undefined
          ? nexq.enqueueIn(queue, when.in, className, jobArgs)
          : nexq.enqueue(queue, className, jobArgs)),
      // A queue no live node serves, a class none of them has a handler for: said, not refused.
      warnings: unservedReasons(await readServing(redis, keys), queue, className),
    }));
    for (const warning of warnings) process.stderr.write(`nexq: warning: ${warning}\n`);
    if (out.json)
      printJson(out, {
        jid,
        warnings,
        queue,
        class: className,
        args: jobArgs,
        at: when.at?.toISOString() ?? (when.in !== undefined ? isoOfSeconds(Date.now() / 1000 + when.in) : null),
      });
    else out.write(`${jid}\n`);
    return 0;
  },
};
