// W9 many jobs per call (issue 35): 20,000 jobs whose work is one RPUSH of their index, drained
// by one node, once by a handler that takes them one at a time (PushOne) and once by a performMany
// handler with chunk size 100 (PushMany: one RPUSH of the chunk's 100 indexes), at queue
// concurrency 100 (one chunk of 100 at a time: it runs, settles, and only then are the next 100
// fetched) and 300 (three chunks overlap), three rounds of each. Read: jobs/s each way, and every
// index pushed once per run.
import { BenchContext, QUEUE } from '../context';
import { fillQueue } from '../fill';
import { runNode } from '../node-run';

/** The queue's concurrencies: a chunk is never larger, so each lets chunks of 100 form. */
export const W9_CONCURRENCIES = [100, 300];
const ROUNDS = 3;
const OUT = 'bench:w9:out';
const MODES = [
  { mode: 'one at a time', className: 'PushOne' },
  { mode: 'performMany, size 100', className: 'PushMany' },
] as const;

export interface W9Run {
  mode: (typeof MODES)[number]['mode'];
  concurrency: number;
  round: number;
  seconds: number;
  jobsPerSec: number;
  nodeCpuSeconds: number;
  redisCpuSeconds: number;
}

export interface W9Result {
  jobs: number;
  runs: W9Run[];
}

export async function runW9(ctx: BenchContext): Promise<W9Result> {
  const jobs = ctx.sizes.processing;
  const runs: W9Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const concurrency of W9_CONCURRENCIES)
      for (const { mode, className } of MODES) runs.push(await runOnce(ctx, jobs, round, concurrency, mode, className));
  }
  await ctx.admin.flushall();
  return { jobs, runs };
}

async function runOnce(
  ctx: BenchContext,
  jobs: number,
  round: number,
  concurrency: number,
  mode: W9Run['mode'],
  className: string,
): Promise<W9Run> {
  const what = `W9 ${className} c${concurrency} round ${round}`;
  await ctx.admin.flushall();
  ctx.log(`${what}: enqueueing ${jobs} jobs`);
  await fillQueue(ctx.enqueuer, QUEUE, jobs, undefined, className, [ctx.server.url, OUT]);
  ctx.log(`${what}: draining`);
  const run = await runNode(ctx, { what, concurrency, expect: jobs });
  const pushed = await ctx.admin.llen(OUT);
  if (pushed !== jobs) ctx.problems.push(`${what}: ${pushed} indexes pushed, not ${jobs}`);
  return {
    mode,
    concurrency,
    round,
    seconds: run.seconds,
    jobsPerSec: run.jobsPerSec,
    nodeCpuSeconds: run.nodeCpuSeconds,
    redisCpuSeconds: run.redisCpuSeconds,
  };
}

/** W9 as its own Markdown table: each round's jobs/s, both ways, and the CPU per job. */
export function w9Report(result: W9Result): string {
  const lines = [
    `W9 many jobs per call: ${result.jobs.toLocaleString('en-US')} jobs of one RPUSH each`,
    '',
    '| handler | concurrency | round | jobs/s | node CPU µs/job | redis CPU µs/job |',
    '|---|---|---|---|---|---|',
  ];
  for (const run of result.runs) {
    const perJob = (seconds: number) => ((1e6 * seconds) / result.jobs).toFixed(0);
    lines.push(
      `| ${run.mode} | ${run.concurrency} | ${run.round} | ${Math.round(run.jobsPerSec).toLocaleString('en-US')} | ${perJob(run.nodeCpuSeconds)} | ${perJob(run.redisCpuSeconds)} |`,
    );
  }
  return lines.join('\n');
}
