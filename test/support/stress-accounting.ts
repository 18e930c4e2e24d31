// The end of a stress run: where every job the driver sent ended up (done, dead, retry), checked
// against what its handler's runs wrote to the log and how its cancel answered. A job still queued
// or held by a node, or gone without a finished run, or unknown to the driver, is a problem.
import type { Nexq } from '../../src/nexq';
import type { JobInfo } from '../../src/admin/job-info';
import { deadThreads, Run, runsByJid } from './run-log';
import type { SentJob } from './stress-driver';

export interface Fates {
  done: number;
  dead: Record<string, number>;
  retry: Record<string, number>;
}

/** Reads every job's fate through `show` and returns the fates with every inconsistency found. */
export async function accountFor(
  producer: Nexq,
  jobs: Map<string, SentJob>,
  runs: Run[],
): Promise<{ fates: Fates; problems: string[] }> {
  const problems: string[] = [];
  const fates: Fates = { done: 0, dead: {}, retry: {} };
  const byJid = runsByJid(runs);
  const died = deadThreads(runs);
  for (const jid of byJid.keys()) if (!jobs.has(jid)) problems.push(`${jid} ran but was never sent`);
  const jids = [...jobs.keys()];
  const infos: Array<JobInfo | undefined> = [];
  for (let i = 0; i < jids.length; i += 200)
    infos.push(...(await Promise.all(jids.slice(i, i + 200).map((jid) => producer.show(jid)))));
  jids.forEach((jid, i) => {
    const sent = jobs.get(jid) as SentJob;
    const info = infos[i];
    const jobRuns = byJid.get(jid) ?? [];
    const last = jobRuns.at(-1);
    const say = (what: string) =>
      problems.push(
        `${sent.kind} job ${jid} ${what} (runs: ${jobRuns.map((r) => (r.completed ? 'finished' : 'cut')).join(', ') || 'none'}, cancel: ${String(sent.cancelled)})`,
      );
    if (sent.cancelled === 'threw') say('was not cancelled within the cancel timeout');
    if (!info) {
      fates.done++;
      if (!last?.completed) say('is gone from Redis but its last run did not finish');
      if (sent.cancelled === true) say('was cancelled, yet is done');
      return;
    }
    if (info.state !== 'dead' && info.state !== 'retry') {
      say(`is still ${info.state}${info.node ? ` on ${info.node}` : ''}`);
      return;
    }
    const errorClass = String(info.job?.error_class);
    const tally = info.state === 'dead' ? fates.dead : fates.retry;
    tally[errorClass] = (tally[errorClass] ?? 0) + 1;
    const cancelled = errorClass === 'JobCancelledError';
    if (cancelled !== (sent.cancelled === true))
      say(`is in ${info.state} as ${errorClass} while its cancel answered ${String(sent.cancelled)}`);
    if (cancelled && info.state !== 'dead') say('was cancelled but waits for a retry');
    // A job whose thread died before its first log write reached Redis has no run to look at.
    if (errorClass === 'WorkerThreadExited' && last && !died.has(last.thread))
      say('failed as WorkerThreadExited though no thread died under its last run');
    if (!cancelled && errorClass !== 'WorkerThreadExited' && errorClass !== 'JobTimeoutError')
      say(`failed as ${errorClass}, which nothing in this test causes`);
    if (sent.kind === 'exit' && info.state !== 'dead') say('ended its thread but is not dead');
  });
  return { fates, problems };
}
