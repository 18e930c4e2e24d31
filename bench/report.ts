// The figures as a Markdown table (measured, and issue 7's targets as a reference column), the
// CPU profile's top functions, and the problems seen. Figures only: nothing here passes or fails.
import type { CeilingResult } from './redis-benchmark';
import type { SerialRoundTrips } from './serial-round-trips';
import { ProfileSummary, WAITING } from './cpu-profile';
import type { ProfileResult } from './workloads/profile';
import type { W1Result } from './workloads/w1-enqueue';
import type { W2Result } from './workloads/w2-processing';
import type { W3Result } from './workloads/w3-latency';
import type { W4Result } from './workloads/w4-backlog';
import type { W5Result } from './workloads/w5-several-queues';
import type { W6Result } from './workloads/w6-cpu-bound';
import type { W7Result } from './workloads/w7-many-queues';
import type { W8Result } from './workloads/w8-fairness';
import type { W9Result } from './workloads/w9-perform-many';
import type { PeerResult } from './workloads/peers';

export interface BenchResults {
  ceiling?: CeilingResult[];
  serial?: SerialRoundTrips;
  w1?: W1Result;
  w2?: W2Result[];
  w3?: W3Result;
  /** W3 with the jobs in the third of a node's three queues. */
  w3Third?: W3Result;
  w4?: W4Result;
  w5?: W5Result[];
  /** W6 CPU-bound jobs: nexq, and with --peers the peers, in its own table (w6-report.ts). */
  w6?: W6Result;
  w7?: W7Result;
  w8?: W8Result;
  /** W9 many jobs per call: one at a time against performMany, in its own table. */
  w9?: W9Result;
  profile?: ProfileResult;
  /** --peers: each peer through W1, W2 c10/c50 and W3 (see comparison.ts). */
  peers?: PeerResult[];
}

type Row = [workload: string, metric: string, measured: string, target: string];

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const fix = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const mb = (n: number) => `${fix(n, 1)} MB`;
const pct = (part: number, whole: number) => `${fix((100 * part) / whole, 0)}%`;

/** Issue 7's targets, shown beside the figures for reference. */
const W2_TARGET: Record<number, string> = { 10: '≥ 10,000', 50: '≥ 15,000' };
const W2_RSS_TARGET: Record<number, string> = { 50: '≤ 120 MB' };

function ceilingRows(ceiling: CeilingResult[]): Row[] {
  return ceiling.flatMap((c) =>
    Object.entries(c.tests).map(([test, t]): Row => [
      `ceiling: redis-benchmark -P ${c.pipeline}`,
      `${test} requests/s (50 clients)`,
      int(t.rps),
      '',
    ]),
  );
}

const micros = (perSec: number) => `${fix(1e6 / perSec, 1)} µs`;

function serialRows(serial: SerialRoundTrips): Row[] {
  const w = 'ceiling: serial round trips (one ioredis client in the bench process, one awaited at a time)';
  return [
    [w, 'PING round trips/s', `${int(serial.pingPerSec)} (${micros(serial.pingPerSec)} each)`, ''],
    [
      w,
      'EVALSHA round trips/s (a script that returns 1)',
      `${int(serial.evalshaPerSec)} (${micros(serial.evalshaPerSec)} each)`,
      '',
    ],
  ];
}

function w1Rows(w1: W1Result, serial?: SerialRoundTrips): Row[] {
  const one = `W1 enqueue, one at a time (${int(w1.jobs)})`;
  const rows: Row[] = [[one, 'jobs/s', int(w1.oneAtATime.jobsPerSec), '≥ 12,000']];
  if (serial) {
    const ratio = serial.evalshaPerSec / w1.oneAtATime.jobsPerSec;
    rows.push([
      one,
      'time per enqueue vs one serial EVALSHA round trip (ceiling)',
      `${micros(w1.oneAtATime.jobsPerSec)} vs ${micros(serial.evalshaPerSec)}: ${fix(ratio, 2)}×`,
      '',
    ]);
  }
  rows.push([`W1 enqueueAll, ${int(w1.bulk.chunk)} per call`, 'jobs/s', int(w1.bulk.jobsPerSec), '≥ 75,000']);
  return rows;
}

function commandMix(byCommand: Record<string, number>): string {
  return Object.entries(byCommand)
    .filter(([, perJob]) => perJob >= 0.005)
    .map(([command, perJob]) => `${command} ${fix(perJob, 2)}`)
    .join(', ');
}

function w2Rows(run: W2Result): Row[] {
  const c = run.concurrency;
  const w = `W2 c${c} (${int(run.jobs)} jobs)`;
  const main = run.nodeCpuByThread.main;
  return [
    [w, 'jobs/s, ready → last ack', int(run.jobsPerSec), W2_TARGET[c] ?? ''],
    [w, 'peak RSS of the node process', mb(run.nodePeakRssMb), W2_RSS_TARGET[c] ?? ''],
    [
      w,
      'CPU s: node (all threads) / its main thread / redis-server',
      `${fix(run.nodeCpuSeconds, 2)} / ${fix(main, 2)} / ${fix(run.redisCpuSeconds, 2)} in ${fix(run.seconds, 2)} s wall (${pct(run.nodeCpuSeconds, run.seconds)} / ${pct(main, run.seconds)} / ${pct(run.redisCpuSeconds, run.seconds)} of a core)`,
      '',
    ],
    [w, "Redis commands per job (INFO commandstats, scripts' inner calls included)", fix(run.commands.total, 2), '≤ 2'],
    [w, 'commands per job by name', commandMix(run.commands.byCommand), ''],
    [w, 'socket reads per job (≈ round trips)', fix(run.commands.reads, 2), ''],
  ];
}

function w3Rows(w3: W3Result, oneQueue?: W3Result): Row[] {
  const d = w3.latencyMs;
  const names = w3.queues && w3.queues.length > 5 ? `${w3.queues.length} queues` : w3.queues?.join(',');
  const where = w3.queues ? `, jobs in queue ${w3.queues.length} of ${names}` : '';
  const w = `W3 latency, idle node c10${where} (${w3.jobs} jobs ${w3.gapMs} ms apart; ${fix(w3.actualGapMs, 1)} ms actual)`;
  const beside = (value: number, reference: number | undefined) =>
    reference === undefined ? '' : ` (${value >= reference ? '+' : ''}${fix(value - reference, 2)} ms vs one queue)`;
  return [
    [
      w,
      'p50 enqueue call → handler start',
      `${fix(d.p50, 2)} ms${beside(d.p50, oneQueue?.latencyMs.p50)}`,
      oneQueue ? 'within 0.2 ms of one queue' : '≤ 0.8 ms',
    ],
    [w, 'p90', `${fix(d.p90, 2)} ms`, ''],
    [w, 'p99', `${fix(d.p99, 2)} ms${beside(d.p99, oneQueue?.latencyMs.p99)}`, oneQueue ? '' : '≤ 2.5 ms'],
    [w, 'max', `${fix(d.max, 2)} ms`, ''],
  ];
}

/** W5 beside W2 at the same concurrency: one busy queue of 10 vs W2 c10, three of 10 vs W2 c30. */
function w5Rows(w5: W5Result, w2: W2Result[]): Row[] {
  const busy = w5.filled.filter((n) => n > 0).length;
  const reference = w2.find((r) => r.concurrency === busy * w5.queues[0].concurrency);
  const w = `W5 ${w5.shape} (${w5.queues.map((q) => `${q.name}:${q.concurrency}${q.weight ? `/w${q.weight}` : ''}`).join(',')}; ${int(w5.jobs)} jobs)`;
  const ratio = reference ? ` (${fix(w5.jobsPerSec / reference.jobsPerSec, 2)}× W2 c${reference.concurrency})` : '';
  return [
    [w, 'jobs/s, ready → last ack', `${int(w5.jobsPerSec)}${ratio}`, '≥ 0.9× W2 at the same concurrency'],
    [
      w,
      'CPU s: node (all threads) / redis-server',
      `${fix(w5.nodeCpuSeconds, 2)} / ${fix(w5.redisCpuSeconds, 2)} in ${fix(w5.seconds, 2)} s wall`,
      '',
    ],
    [w, 'Redis commands per job', fix(w5.commands.total, 2), ''],
  ];
}

/** W7 beside W2 c10 (one busy queue of 10), with the idle node's connections and traffic (issue 32). */
function w7Rows(w7: W7Result, w2: W2Result[]): Row[] {
  const reference = w2.find((r) => r.concurrency === w7.concurrency);
  const w = `W7 ${w7.queues} queues of c${w7.concurrency}, one busy (${int(w7.busy.jobs)} jobs)`;
  const ratio = reference
    ? ` (${fix(w7.busy.jobsPerSec / reference.jobsPerSec, 2)}× W2 c${reference.concurrency})`
    : '';
  const top = Object.entries(w7.idle.byCommand)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([c, n]) => `${c} ${fix(n, 1)}`)
    .join(', ');
  return [
    [w, 'jobs/s, ready → last ack', `${int(w7.busy.jobsPerSec)}${ratio}`, '≥ 0.9× W2 at the same concurrency'],
    [w, 'Redis commands per job', fix(w7.busy.commands.total, 2), ''],
    [`W7 idle node, ${w7.queues} queues`, 'Redis connections of the node', String(w7.idle.connections), '≤ 4'],
    [
      `W7 idle node, ${w7.queues} queues`,
      'commands/s it sends Redis',
      `${fix(w7.idle.commandsPerSec, 1)} (${top})`,
      '≤ 10',
    ],
    ...(w7.latency ? w3Rows(w7.latency) : []),
  ];
}

/** W8: the fair queue beside the plain one, same jobs (issue 34). */
function w8Rows(w8: W8Result): Row[] {
  const w = `W8 ${int(w8.jobs)} jobs: 1 group of 10,000, then 50 of 10, c${w8.concurrency}`;
  const wait = (d: W8Result['smallWait']['fair']) => `${fix(d.p50, 2)} / ${fix(d.p99, 2)} s`;
  return [
    [
      w,
      'jobs/s, fair / plain queue',
      `${int(w8.fair.jobsPerSec)} / ${int(w8.plain.jobsPerSec)} (${fix(w8.fair.jobsPerSec / w8.plain.jobsPerSec, 2)}×)`,
      '≥ 0.9×',
    ],
    [w, "small groups' wait p50 / p99, fair queue", wait(w8.smallWait.fair), ''],
    [w, "small groups' wait p50 / p99, plain queue", wait(w8.smallWait.plain), ''],
    [w, "big group's jobs started before the small groups' last", int(w8.bigBeforeLastSmall), '< 1,000'],
    [
      w,
      'Redis commands per job, fair / plain',
      `${fix(w8.fair.commands.total, 2)} / ${fix(w8.plain.commands.total, 2)}`,
      '',
    ],
  ];
}

function w4Rows(w4: W4Result): Row[] {
  const w = `W4 backlog of ${int(w4.jobs)}, c${w4.concurrency}`;
  return [
    [w, 'drain jobs/s', int(w4.drainJobsPerSec), ''],
    [w, 'peak RSS of the node process', mb(w4.nodePeakRssMb), ''],
    [w, 'node RSS at the first / last sample of the drain', `${mb(w4.nodeRssFirstMb)} / ${mb(w4.nodeRssLastMb)}`, ''],
    [
      w,
      'peak Redis RSS: INFO used_memory_rss / /proc VmRSS',
      `${mb(w4.redisPeakRssMb)} / ${mb(w4.redisPeakProcRssMb)} (empty: ${mb(w4.redisRssBeforeFillMb)})`,
      '',
    ],
    [w, 'enqueueAll fill, jobs/s', int(w4.fillJobsPerSec), ''],
  ];
}

export function table(results: BenchResults): string {
  const rows: Row[] = [
    ...(results.ceiling ? ceilingRows(results.ceiling) : []),
    ...(results.serial ? serialRows(results.serial) : []),
    ...(results.w1 ? w1Rows(results.w1, results.serial) : []),
    ...(results.w2 ?? []).flatMap(w2Rows),
    ...(results.w3 ? w3Rows(results.w3) : []),
    ...(results.w3Third ? w3Rows(results.w3Third, results.w3) : []),
    ...(results.w4 ? w4Rows(results.w4) : []),
    ...(results.w5 ?? []).flatMap((run) => w5Rows(run, results.w2 ?? [])),
    ...(results.w7 ? w7Rows(results.w7, results.w2 ?? []) : []),
    ...(results.w8 ? w8Rows(results.w8) : []),
    ...(results.profile
      ? w2Rows(results.profile.run).map((r): Row => [`${r[0]} under --cpu-prof`, r[1], r[2], ''])
      : []),
  ];
  return markdown(['workload', 'metric', 'measured', 'target (issue 7)'], rows);
}

export function markdown(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Worker threads get a shorter list: with no-op jobs they mostly wait. */
const WORKER_TOP = 8;

function profileSection(title: string, s: ProfileSummary, n: number): string {
  const span = s.windowed ? 'ready → last ack' : 'whole thread life: the window missed it';
  const head = `${title}: ${s.file}\n  ${fix(s.busyMs, 0)} ms not waiting of ${fix(s.totalMs, 0)} ms sampled (${span})`;
  const rows = s.top.slice(0, n).map((t) => {
    const note = WAITING.has(t.fn.split(' ')[0]) ? '   [waiting]' : '';
    return `  ${fix(t.ms, 1).padStart(8)} ms ${fix(t.pct, 1).padStart(5)}%  ${t.fn}${note}`;
  });
  return [head, ...rows].join('\n');
}

export function profileReport(profile: ProfileResult): string {
  const parts = [`CPU profiles in ${profile.dir}: self time by function (wall-clock samples)`];
  if (profile.mainThread) parts.push(profileSection('main thread', profile.mainThread, profile.mainThread.top.length));
  profile.workerThreads.forEach((s, i) => parts.push(profileSection(`worker thread ${i + 1}`, s, WORKER_TOP)));
  return parts.join('\n\n');
}
