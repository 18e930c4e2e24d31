// nexq beside the peers (--peers): one row per figure, nexq's column, a column per peer, and
// nexq's figure as a ratio to the best peer's — "nexq 9,800 jobs/s = 0.41× bee-queue 24,000".
// The best peer is the highest for throughput and the lowest for costs (CPU, memory, latency), so a
// ratio above 1.0× is better than the best peer for jobs/s, below 1.0× for the others.
// Figures only: nothing here passes or fails.
import type { PeerId } from './peer-setup';
import { BenchResults, markdown } from './report';
import type { PeerResult } from './workloads/peers';

export type Better = 'higher' | 'lower';

/** One compared figure: nexq's value and each peer's (undefined where it was not measured). */
export interface Figure {
  workload: string;
  metric: string;
  unit: string;
  better: Better;
  /** Decimals shown. */
  digits: number;
  nexq?: number;
  peers: { name: string; value?: number }[];
}

export const PEER_NAMES: Record<PeerId, string> = {
  'bee-queue': 'bee-queue',
  bullmq: 'BullMQ',
  'bullmq-threads': 'BullMQ threads',
  sidekiq: 'Sidekiq',
};

const usable = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n);

export function formatNumber(n: number | undefined, digits: number): string {
  return usable(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—';
}

/** The best peer for this figure (highest or lowest), or undefined when no peer measured it. */
export function bestPeer(figure: Figure): { name: string; value: number } | undefined {
  let best: { name: string; value: number } | undefined;
  for (const { name, value } of figure.peers) {
    if (!usable(value)) continue;
    if (!best || (figure.better === 'higher' ? value > best.value : value < best.value)) best = { name, value };
  }
  return best;
}

/** "nexq 9,800 jobs/s = 0.41× bee-queue 24,000", or "—" when either side is missing. */
export function ratioCell(figure: Figure): string {
  const best = bestPeer(figure);
  if (!best || !usable(figure.nexq)) return '—';
  const ratio = best.value === 0 ? '∞' : `${(figure.nexq / best.value).toFixed(2)}×`;
  const unit = figure.unit ? ` ${figure.unit}` : '';
  return `nexq ${formatNumber(figure.nexq, figure.digits)}${unit} = ${ratio} ${best.name} ${formatNumber(best.value, figure.digits)}`;
}

const perJobUs = (seconds: number, jobs: number) => (1e6 * seconds) / jobs;

/** The compared figures of one run: W1, W2 c10 and c50, W3 (the rows nexq or a peer measured). */
export function figures(nexq: BenchResults, peers: PeerResult[]): Figure[] {
  const peerValues = (pick: (p: PeerResult) => number | undefined) =>
    peers.map((p) => ({ name: PEER_NAMES[p.peer], value: pick(p) }));
  const out: Figure[] = [];
  const add = (
    workload: string,
    metric: string,
    unit: string,
    better: Better,
    digits: number,
    mine: number | undefined,
    theirs: (p: PeerResult) => number | undefined,
  ) => {
    const figure: Figure = { workload, metric, unit, better, digits, nexq: mine, peers: peerValues(theirs) };
    if (usable(mine) || figure.peers.some((p) => usable(p.value))) out.push(figure);
  };
  const w1 = nexq.w1;
  add(
    'W1 one at a time',
    'jobs/s',
    'jobs/s',
    'higher',
    0,
    w1?.oneAtATime.jobsPerSec,
    (p) => p.w1?.oneAtATime.jobsPerSec,
  );
  add(
    'W1 one at a time',
    'Redis CPU µs per job',
    'µs',
    'lower',
    0,
    w1 && perJobUs(w1.oneAtATime.redisCpuSeconds, w1.jobs),
    (p) => p.w1 && perJobUs(p.w1.oneAtATime.redisCpuSeconds, p.w1.jobs),
  );
  add('W1 bulk, 1,000 per call', 'jobs/s', 'jobs/s', 'higher', 0, w1?.bulk.jobsPerSec, (p) => p.w1?.bulk.jobsPerSec);
  for (const c of [10, 50]) {
    const mine = nexq.w2?.find((r) => r.concurrency === c);
    const theirs = (p: PeerResult) => p.w2.find((r) => r.concurrency === c);
    add(`W2 c${c}`, 'jobs/s', 'jobs/s', 'higher', 0, mine?.jobsPerSec, (p) => theirs(p)?.jobsPerSec);
    add(
      `W2 c${c}`,
      'CPU µs per job, process + redis-server',
      'µs',
      'lower',
      0,
      mine && perJobUs(mine.nodeCpuSeconds + mine.redisCpuSeconds, mine.jobsInWindow),
      (p) => {
        const run = theirs(p);
        return run && perJobUs(run.processCpuSeconds + run.redisCpuSeconds, run.jobsInWindow);
      },
    );
    if (c === 50)
      add(`W2 c${c}`, 'peak RSS of the process', 'MB', 'lower', 0, mine?.nodePeakRssMb, (p) => theirs(p)?.peakRssMb);
  }
  add(
    'W3 idle latency, c10',
    'p50 enqueue → job start',
    'ms',
    'lower',
    2,
    nexq.w3?.latencyMs.p50,
    (p) => p.w3?.latencyMs.p50,
  );
  add(
    'W3 idle latency, c10',
    'p99 enqueue → job start',
    'ms',
    'lower',
    2,
    nexq.w3?.latencyMs.p99,
    (p) => p.w3?.latencyMs.p99,
  );
  return out;
}

/** The Markdown table of `figures`, with the peers' versions as column heads. */
export function comparisonTable(nexq: BenchResults, peers: PeerResult[]): string {
  const header = [
    'workload',
    'metric',
    'nexq',
    ...peers.map((p) => p.version ?? PEER_NAMES[p.peer]),
    'nexq vs the best peer',
  ];
  const rows = figures(nexq, peers).map((f) => [
    f.workload,
    `${f.metric} (${f.better} is better)`,
    formatNumber(f.nexq, f.digits),
    ...f.peers.map((p) => formatNumber(p.value, f.digits)),
    ratioCell(f),
  ]);
  return markdown(header, rows);
}
