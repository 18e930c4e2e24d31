// W1 enqueue: an enqueuer-mode node writes no-op jobs, one awaited `enqueue` at a time, then
// `enqueueAll` in chunks of 1,000. Jobs per second of each; the queue is checked afterwards.
import { performance } from 'node:perf_hooks';
import { BenchContext, keys, QUEUE } from '../context';
import { CHUNK, fillQueue, NOOP } from '../fill';
import { cpuSeconds } from '../proc';

export interface W1Result {
  jobs: number;
  /** redisCpuSeconds: redis-server's CPU while the timed enqueues ran. */
  oneAtATime: { seconds: number; jobsPerSec: number; redisCpuSeconds: number };
  bulk: { chunk: number; seconds: number; jobsPerSec: number };
}

async function expectQueued(ctx: BenchContext, what: string, count: number): Promise<void> {
  const queued = await ctx.admin.llen(keys.queue(QUEUE));
  if (queued !== count) ctx.problems.push(`W1 ${what}: ${queued} jobs in the queue after enqueueing ${count}`);
}

export async function runW1(ctx: BenchContext): Promise<W1Result> {
  const { enqueuer, sizes, admin } = ctx;
  const n = sizes.enqueue;

  await admin.flushall();
  for (let i = 0; i < sizes.enqueueWarmup; i++) await enqueuer.enqueue(QUEUE, NOOP, [i]);
  await fillQueue(enqueuer, QUEUE, sizes.enqueueWarmup * 5);
  await admin.flushall();

  ctx.log(`W1: ${n} jobs one at a time`);
  const redisCpuBefore = cpuSeconds(ctx.server.pid);
  const started = performance.now();
  for (let i = 0; i < n; i++) await enqueuer.enqueue(QUEUE, NOOP, [i]);
  const oneSeconds = (performance.now() - started) / 1000;
  const redisCpuSeconds = cpuSeconds(ctx.server.pid) - redisCpuBefore;
  await expectQueued(ctx, 'one at a time', n);
  await admin.flushall();

  ctx.log(`W1: ${n} jobs with enqueueAll, ${CHUNK} per call`);
  const bulkSeconds = await fillQueue(enqueuer, QUEUE, n, CHUNK);
  await expectQueued(ctx, 'enqueueAll', n);
  await admin.flushall();

  return {
    jobs: n,
    oneAtATime: { seconds: oneSeconds, jobsPerSec: n / oneSeconds, redisCpuSeconds },
    bulk: { chunk: CHUNK, seconds: bulkSeconds, jobsPerSec: n / bulkSeconds },
  };
}
