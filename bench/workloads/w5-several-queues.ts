// W5 several queues: one node serving 5 queues at concurrency 10 each, as deployments do
// (`critical, default, low, ...`, most of them empty most of the time), with the W2 jobs either all
// in one queue (the last: every other queue is empty) or spread over 3 of the 5 with weights.
// Read beside W2 at the same concurrency: one busy queue against W2 c10, three busy queues (30
// slots) against W2 c30.
import { BenchContext } from '../context';
import { fillQueue } from '../fill';
import { NodeRunResult, runNode } from '../node-run';
import type { BenchQueue } from '../protocol';

const PER_QUEUE = 10;
const NAMES = ['critical', 'high', 'default', 'low', 'bulk'];

export interface W5Result extends NodeRunResult {
  /** 'one busy queue' or 'spread over 3 queues'. */
  shape: string;
  queues: BenchQueue[];
  /** Jobs per busy queue, in the order of `queues` (0 for the empty ones). */
  filled: number[];
  jobs: number;
}

async function run(ctx: BenchContext, shape: string, queues: BenchQueue[], filled: number[]): Promise<W5Result> {
  const jobs = filled.reduce((a, b) => a + b, 0);
  const what = `W5 ${shape}`;
  await ctx.admin.flushall();
  ctx.log(`${what}: enqueueing ${jobs} jobs`);
  for (let i = 0; i < queues.length; i++) if (filled[i] > 0) await fillQueue(ctx.enqueuer, queues[i].name, filled[i]);
  ctx.log(`${what}: draining`);
  const result = await runNode(ctx, { what, concurrency: PER_QUEUE, queues, expect: jobs });
  await ctx.admin.flushall();
  return { shape, queues, filled, jobs, ...result };
}

export async function runW5(ctx: BenchContext): Promise<W5Result[]> {
  const jobs = ctx.sizes.processing;
  const plain = NAMES.map((name) => ({ name, concurrency: PER_QUEUE }));
  const oneBusy = await run(
    ctx,
    'one busy queue of 5',
    plain,
    NAMES.map((_, i) => (i === NAMES.length - 1 ? jobs : 0)),
  );
  // Weights 3:2:1 on the busy ones (the empty ones weigh 1); a third of the jobs each.
  const weights = [undefined, 3, undefined, 2, 1];
  const weighted = NAMES.map((name, i) => ({
    name,
    concurrency: PER_QUEUE,
    ...(weights[i] ? { weight: weights[i] } : {}),
  }));
  const third = Math.floor(jobs / 3);
  const spread = await run(ctx, '3 busy queues of 5, weighted', weighted, [0, third, 0, third, jobs - 2 * third]);
  return [oneBusy, spread];
}
