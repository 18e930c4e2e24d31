// W3 latency: an idle node (concurrency 10); jobs enqueued one at a time, 5 ms apart, by the bench
// process. Each job's handler reads (its start − the time the bench took just before the enqueue
// call, sent in the job's args, as the peers' W3 does) and posts it to the node's main thread (see
// jobs/Latency.ts). Not enqueued_at: that is by the enqueuer's clock, Redis' TIME plus the time since
// it was read, which a loaded machine puts milliseconds off (-11.5 ms p50 was seen). Warm-up jobs
// (negative index) load the handler first and are not counted. Both ends read the machine's
// monotonic clock (process.hrtime), one clock for every process and thread. Not timeOrigin +
// performance.now(): each process and each worker thread fixes its own timeOrigin from the
// realtime clock when it starts, and where that clock is stepped (seen on a VM: 0.2 ms a second)
// two of them disagree by tens of ms, which read as W3 latencies of 77-119 ms, and negative ones.
import { performance } from 'node:perf_hooks';
import { BenchContext, QUEUE } from '../context';
import { distribution, Distribution } from '../percentiles';
import { runNode } from '../node-run';
import { monotonicSeconds, type BenchQueue } from '../protocol';

export const GAP_MS = 5;
/** The node polls every pollTimeout when idle; this lets it settle into that before jobs arrive. */
export const SETTLE_MS = 500;
const LATENCY = 'Latency';

/** W3 on the third of three queues (the other two empty): as fast as on a node's only queue. */
export const THIRD_OF_THREE: BenchQueue[] = [
  { name: 'critical', concurrency: 10 },
  { name: 'low', concurrency: 10 },
  { name: QUEUE, concurrency: 10 },
];

export interface W3Result {
  /** The node's queues, when not one; the jobs go to the last. */
  queues?: string[];
  jobs: number;
  gapMs: number;
  /** The mean gap between two enqueues as it happened (GAP_MS plus the enqueue's round trip). */
  actualGapMs: number;
  /** Milliseconds from the enqueue call to the handler's start. */
  latencyMs: Distribution;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runW3(ctx: BenchContext, queues?: BenchQueue[]): Promise<W3Result> {
  const { latency: jobs, latencyWarmup: warmup } = ctx.sizes;
  const what = queues ? `W3 on queue ${queues.length} of ${queues.length}` : 'W3';
  await ctx.admin.flushall();
  ctx.log(`${what}: ${jobs} jobs, ${GAP_MS} ms apart, to an idle node`);
  const enqueueSpaced = async (from: number, count: number) => {
    for (let i = 0; i < count; i++) {
      await ctx.enqueuer.enqueue(QUEUE, LATENCY, [from + i, monotonicSeconds()]);
      await sleep(GAP_MS);
    }
  };
  let actualGapMs = NaN;
  const run = await runNode(ctx, {
    what,
    concurrency: 10,
    queues,
    expect: warmup + jobs,
    latency: true,
    whileRunning: async () => {
      await sleep(SETTLE_MS);
      await enqueueSpaced(-warmup, warmup);
      await sleep(SETTLE_MS);
      const started = performance.now();
      await enqueueSpaced(0, jobs);
      actualGapMs = (performance.now() - started) / jobs;
    },
  });
  const readings = run.done.latencies.filter((r) => r.index >= 0);
  if (readings.length !== jobs) ctx.problems.push(`${what}: ${readings.length} latency readings for ${jobs} jobs`);
  await ctx.admin.flushall();
  return {
    queues: queues?.map((q) => q.name),
    jobs,
    gapMs: GAP_MS,
    actualGapMs,
    latencyMs: distribution(readings.map((r) => r.seconds * 1000)),
  };
}
