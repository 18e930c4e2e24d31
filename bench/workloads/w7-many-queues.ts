// W7 many queues (issue 32): one node serving 200 queues at concurrency 10 each, as a deployment
// with a queue per tenant or per job type does. Three readings:
//  - jobs/s with the W2 jobs all in the last queue (199 empty ones beside it), read beside W2 c10;
//  - the node idle: its Redis connections (CLIENT LIST, against the count before it started) and
//    the commands it sends Redis per second (INFO commandstats over IDLE_MS, scripts' inner calls
//    included), after which one job ends the run;
//  - enqueue → start latency on the last queue, as W3 measures it (runW3 with these queues).
import { BenchContext, QUEUE } from '../context';
import { fillQueue, NOOP } from '../fill';
import { NodeRunResult, runNode } from '../node-run';
import type { BenchQueue } from '../protocol';
import { redisCounts } from '../commandstats';
import { runW3, W3Result } from './w3-latency';

export const MANY_QUEUES = 200;
const PER_QUEUE = 10;
/** The node settles (every queue fetched once, the first idle check made) before the idle reading. */
const SETTLE_MS = 2000;
const IDLE_MS = 10_000;

export interface W7Result {
  queues: number;
  concurrency: number;
  busy: NodeRunResult & { jobs: number };
  idle: { connections: number; commandsPerSec: number; byCommand: Record<string, number> };
  latency?: W3Result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** MANY_QUEUES queues of PER_QUEUE, the last one QUEUE (where W3 and fillQueue put jobs). */
export function manyQueues(): BenchQueue[] {
  return Array.from({ length: MANY_QUEUES }, (_, i) => ({
    name: i === MANY_QUEUES - 1 ? QUEUE : `tenant-${i}`,
    concurrency: PER_QUEUE,
  }));
}

async function clientCount(ctx: BenchContext): Promise<number> {
  const list = (await ctx.admin.client('LIST')) as string;
  return list.split('\n').filter((line) => line.trim() !== '').length;
}

async function idleReading(ctx: BenchContext, queues: BenchQueue[]): Promise<W7Result['idle']> {
  await ctx.admin.flushall();
  const before = await clientCount(ctx);
  let idle: W7Result['idle'] | undefined;
  await runNode(ctx, {
    what: `W7 idle, ${MANY_QUEUES} queues`,
    concurrency: PER_QUEUE,
    queues,
    expect: 1,
    whileRunning: async () => {
      await sleep(SETTLE_MS);
      const connections = (await clientCount(ctx)) - before;
      const from = await redisCounts(ctx.admin);
      const startedAt = Date.now();
      await sleep(IDLE_MS);
      const to = await redisCounts(ctx.admin);
      const seconds = (Date.now() - startedAt) / 1000;
      const byCommand: Record<string, number> = {};
      let total = 0;
      for (const [command, calls] of Object.entries(to.calls)) {
        const delta = calls - (from.calls[command] ?? 0);
        if (command === 'info' || command === 'client' || delta <= 0) continue;
        byCommand[command] = delta / seconds;
        total += delta;
      }
      idle = { connections, commandsPerSec: total / seconds, byCommand };
      await ctx.enqueuer.enqueue(QUEUE, NOOP, [0]); // ends the run
    },
  });
  await ctx.admin.flushall();
  if (!idle) throw new Error('W7: no idle reading');
  return idle;
}

export async function runW7(ctx: BenchContext, latency: boolean): Promise<W7Result> {
  const queues = manyQueues();
  const jobs = ctx.sizes.processing;
  await ctx.admin.flushall();
  ctx.log(`W7: ${jobs} jobs into the last of ${MANY_QUEUES} queues`);
  await fillQueue(ctx.enqueuer, QUEUE, jobs);
  const what = `W7 one busy queue of ${MANY_QUEUES}`;
  const busy = { jobs, ...(await runNode(ctx, { what, concurrency: PER_QUEUE, queues, expect: jobs })) };
  ctx.log(`W7: the node idle for ${IDLE_MS / 1000} s`);
  const idle = await idleReading(ctx, queues);
  const late = latency ? await runW3(ctx, queues) : undefined;
  return { queues: MANY_QUEUES, concurrency: PER_QUEUE, busy, idle, latency: late };
}
