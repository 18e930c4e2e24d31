// W4 backlog: a large queue (enqueueAll) drained by a node at concurrency 50. Peak RSS of the node
// and of Redis while it drains (Redis: INFO used_memory_rss and /proc VmRSS, sampled every
// 250 ms; the queue is at its largest when the drain starts), and the drain's jobs per second.
import { BenchContext, QUEUE } from '../context';
import { redisRssMb } from '../commandstats';
import { fillQueue } from '../fill';
import { runNode } from '../node-run';
import { memory } from '../proc';

const CONCURRENCY = 50;
const SAMPLE_MS = 250;

export interface W4Result {
  jobs: number;
  concurrency: number;
  fillJobsPerSec: number;
  drainJobsPerSec: number;
  drainSeconds: number;
  nodePeakRssMb: number;
  /** The node's RSS at the first and the last sample, MB: growth over the drain. */
  nodeRssFirstMb: number;
  nodeRssLastMb: number;
  redisPeakRssMb: number;
  redisPeakProcRssMb: number;
  redisRssBeforeFillMb: number;
}

export async function runW4(ctx: BenchContext): Promise<W4Result> {
  const jobs = ctx.sizes.backlog;
  await ctx.admin.flushall();
  const redisRssBeforeFillMb = await redisRssMb(ctx.admin);
  ctx.log(`W4: enqueueing ${jobs} jobs`);
  const fillSeconds = await fillQueue(ctx.enqueuer, QUEUE, jobs);
  let redisPeakRssMb = await redisRssMb(ctx.admin);
  let redisPeakProcRssMb = memory(ctx.server.pid).rssMb;
  const nodeRss: number[] = [];
  ctx.log(`W4: draining`);
  const run = await runNode(ctx, {
    what: 'W4',
    concurrency: CONCURRENCY,
    expect: jobs,
    sampleMs: SAMPLE_MS,
    sample: async (child) => {
      try {
        nodeRss.push(memory(child.pid).rssMb);
        redisPeakProcRssMb = Math.max(redisPeakProcRssMb, memory(ctx.server.pid).rssMb);
        redisPeakRssMb = Math.max(redisPeakRssMb, await redisRssMb(ctx.admin));
      } catch {
        // the child exited between two samples
      }
    },
  });
  await ctx.admin.flushall();
  return {
    jobs,
    concurrency: CONCURRENCY,
    fillJobsPerSec: jobs / fillSeconds,
    drainJobsPerSec: run.jobsPerSec,
    drainSeconds: run.seconds,
    nodePeakRssMb: run.nodePeakRssMb,
    nodeRssFirstMb: nodeRss[0] ?? NaN,
    nodeRssLastMb: nodeRss[nodeRss.length - 1] ?? NaN,
    redisPeakRssMb,
    redisPeakProcRssMb,
    redisRssBeforeFillMb,
  };
}
