// W6's report: one row per runner (jobs/s, summed peak RSS, CPU per job) and the ratios issue 30
// asks for — nexq against bee-queue (and BullMQ) spread over as many processes as nexq has
// threads, in jobs/s and in memory, and against one such process in jobs/s. Figures only.
import { PEER_NAMES } from './comparison';
import { markdown } from './report';
import type { W6Result, W6Run } from './workloads/w6-cpu-bound';

/** The single-threaded peers that W6 also spreads over processes: the ratios are against them. */
const SPREAD_PEERS = ['bee-queue', 'bullmq'] as const;

export interface W6Ratio {
  /** e.g. "bee-queue × 2 processes", "bee-queue, one process". */
  against: string;
  /** nexq's jobs/s ÷ theirs (above 1: nexq is faster). */
  jobsPerSec: number;
  /** nexq's summed peak RSS ÷ theirs (below 1: nexq holds less); only against the spread processes. */
  peakRss?: number;
}

const usable = (n: number) => Number.isFinite(n) && n > 0;
const fixed = (n: number, digits: number) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';
const perJobUs = (seconds: number, run: W6Run) => (1e6 * seconds) / run.jobsInWindow;

export function w6Ratios(result: W6Result): W6Ratio[] {
  const nexq = result.runs.find((r) => r.runner === 'nexq');
  if (!nexq) return [];
  const out: W6Ratio[] = [];
  for (const peer of SPREAD_PEERS) {
    const name = PEER_NAMES[peer];
    const spread = result.runs.find((r) => r.runner === peer && r.processes === result.threads);
    if (spread && usable(spread.jobsPerSec) && result.threads > 1)
      out.push({
        against: `${name} × ${spread.processes} processes`,
        jobsPerSec: nexq.jobsPerSec / spread.jobsPerSec,
        peakRss: nexq.peakRssMb / spread.peakRssMb,
      });
    const one = result.runs.find((r) => r.runner === peer && r.processes === 1);
    if (one && usable(one.jobsPerSec))
      out.push({ against: `${name}, one process`, jobsPerSec: nexq.jobsPerSec / one.jobsPerSec });
  }
  return out;
}

function runnerName(run: W6Run): string {
  return run.runner === 'nexq' ? 'nexq' : run.version;
}

export function w6Report(result: W6Result): string {
  const { calibration } = result;
  const jobCostUs = calibration.iterations * calibration.microsPerHash;
  const head =
    `W6 CPU-bound: ${fixed(result.jobs, 0)} jobs of ${calibration.iterations} SHA-256 hashes each ` +
    `(calibrated: ${fixed(calibration.microsPerHash, 2)} µs a hash, ${fixed(jobCostUs / 1000, 2)} ms a job at the fastest), ` +
    `nexq with ${result.threads} threads (one per core)` +
    (result.skipped.length ? `; not run in W6: ${result.skipped.map((id) => PEER_NAMES[id]).join(', ')}` : '');
  const rows = result.runs.map((run) => [
    runnerName(run),
    `${run.processes} × c${run.concurrency}${run.threads ? `, ${run.threads} job threads each` : ''}`,
    fixed(run.jobsPerSec, 0),
    fixed(run.peakRssMb, 1),
    `${fixed(perJobUs(run.processCpuSeconds, run), 0)} / ${fixed(perJobUs(run.redisCpuSeconds, run), 0)}`,
    fixed(perJobUs(run.processCpuSeconds, run) - jobCostUs, 0),
    fixed(run.seconds, 2),
    fixed(run.loadAverage, 2),
  ]);
  const table = markdown(
    [
      'runner',
      'processes × concurrency',
      'jobs/s',
      'summed peak RSS MB',
      'CPU µs per job: processes / redis-server',
      "processes' µs per job over the job's own",
      'window s',
      'load average at its end',
    ],
    rows,
  );
  const ratios = w6Ratios(result).map(
    (r) =>
      `- nexq ÷ ${r.against}: jobs/s ${fixed(r.jobsPerSec, 2)}× (above 1: nexq faster)` +
      (r.peakRss === undefined ? '' : `; summed peak RSS ${fixed(r.peakRss, 2)}× (below 1: nexq holds less)`),
  );
  return [head, '', table, ...(ratios.length ? ['', ...ratios] : [])].join('\n');
}
