// `nexq drain`: waits, from outside, until the running nodes have emptied the given queues and no
// process runs a job of them (gocraft's Drain, watched over Redis). A live bar on a terminal; a
// summary at the end (JSON with --json); exit 1 with one line on timeout.
import { NexqError } from '../../../config/nexq-error';
import { UsageError } from '../args';
import { LiveLine, renderProgress } from '../progress-bar';
import { isQueueName } from '../../../config/queue-options';
import { Command, CONNECTION_HELP, flagText, Output, printJson, withNexq } from './common';
import { DrainState, isDrained, processedSince, readDrainState, remainingOf, totalQueued } from './drain-state';
import { QueueUnservedError } from '../errors';
import { knownQueue } from './known-queue';

/** Fails at once when a queue has jobs that nothing will take. */
function checkServed(state: DrainState): void {
  if (state.unserved.length === 0) return;
  const text = state.unserved.map((u) => `${u.queue}: ${u.why}`).join('; ');
  throw new QueueUnservedError(`cannot drain queue ${text}`);
}

/** How often the state is read again. */
export const DRAIN_POLL_MS = 250;

export class DrainTimeoutError extends NexqError {
  static override readonly code = 'DRAIN_TIMEOUT';
  override readonly name = 'DrainTimeoutError';
}

export interface DrainSummary {
  drained: boolean;
  queues: string[];
  /** Jobs left (waiting plus running) when the drain began. */
  initial: number;
  /** Jobs left at the end (0 when drained). */
  remaining: number;
  queued: Record<string, number>;
  running: number;
  /** Jobs of these queues that finished meanwhile (`<ns>:nexq:processed:<q>`, counted as each job settles). */
  processed: number;
  seconds: number;
  rate: number;
}

function timeoutSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(text))
    throw new UsageError(`--timeout must be a number of seconds, got ${JSON.stringify(text)}`);
  return Number(text);
}

function summarize(state: DrainState, first: DrainState, startedAt: number, drained: boolean): DrainSummary {
  const seconds = Math.round((Date.now() - startedAt) / 10) / 100;
  const processed = processedSince(first, state);
  return {
    drained,
    queues: state.queues,
    initial: remainingOf(first),
    remaining: drained ? 0 : remainingOf(state),
    queued: drained ? Object.fromEntries(state.queues.map((q) => [q, 0])) : state.queued,
    running: drained ? 0 : state.inBackup + state.busy,
    processed,
    seconds,
    rate: seconds > 0 ? Math.round((processed / seconds) * 10) / 10 : 0,
  };
}

function printSummary(out: Output, s: DrainSummary): void {
  if (out.json) printJson(out, s);
  else if (s.drained)
    out.write(
      `drained ${s.queues.join(', ') || '(no queues)'}: ${s.processed} job(s) processed in ${s.seconds.toFixed(1)} s (${s.rate.toFixed(1)} jobs/s)\n`,
    );
}

export const drainCommand: Command = {
  summary: 'wait until queues are empty and nothing of them runs (live progress bar)',
  flags: ['timeout'],
  help: `Usage: nexq drain [queue...] [options]

Waits until the given queues (default: every queue in the queues set) are empty and no process runs
a job of them: the running nodes drain them; this command only watches. It fails at once, naming
the queue, when a queue has jobs that no live process serves (or that is paused for output). Jobs in the schedule and
retry sets are not waited for. On a terminal a progress bar shows the jobs left (waiting and
running), the rate and the time; otherwise, or with --json, only a summary is printed at the end.
Exits 0 once drained, 1 when --timeout passes first.

Options:
  --timeout SECONDS           give up after this long (default: wait for ever; 0: check once)
${CONNECTION_HELP}`,
  async run(args, out) {
    for (const queue of args.positional)
      if (!isQueueName(queue)) throw new UsageError(`not a queue name: ${JSON.stringify(queue)}`);
    const timeout = timeoutSeconds(flagText(args, 'timeout'));
    const live = !out.json && process.stdout.isTTY ? new LiveLine(out.write) : undefined;
    return withNexq(args, async (session) => {
      const startedAt = Date.now();
      for (const queue of args.positional) await knownQueue(session, queue);
      const first = await readDrainState(session, args.positional);
      let state = first;
      let total = remainingOf(first);
      for (;;) {
        const remaining = remainingOf(state);
        total = Math.max(total, remaining);
        const elapsed = (Date.now() - startedAt) / 1000;
        if (live) {
          const rate = elapsed > 0 ? processedSince(first, state) / elapsed : 0;
          live.draw(
            renderProgress({
              remaining,
              total,
              rate,
              elapsedSeconds: elapsed,
              label: `draining ${state.queues.join(',') || '(no queues)'}`,
            }),
          );
        }
        if (isDrained(state)) break;
        if (state.unserved.length > 0) live?.end();
        checkServed(state);
        if (timeout !== undefined && elapsed >= timeout) {
          live?.end();
          const summary = summarize(state, first, startedAt, false);
          printSummary(out, summary);
          throw new DrainTimeoutError(
            `drain timed out after ${timeout} s: ${summary.remaining} job(s) left (${totalQueued(state)} waiting, ${summary.running} running)`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
        state = await readDrainState(session, args.positional);
      }
      live?.end();
      printSummary(out, summarize(state, first, startedAt, true));
      return 0;
    });
  },
};
