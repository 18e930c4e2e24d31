// W2 processing: no-op jobs pre-enqueued with enqueueAll, then a worker node in its own process
// drains them at a given queue concurrency. Jobs per second from Nexq.start resolved to the last
// ack, the node's peak RSS, CPU of the node vs redis-server, and Redis commands per job.
import { BenchContext, QUEUE } from '../context';
import { fillQueue } from '../fill';
import { NodeRunResult, runNode } from '../node-run';

export interface W2Result extends NodeRunResult {
  concurrency: number;
  jobs: number;
}

export async function runW2(
  ctx: BenchContext,
  concurrency: number,
  execArgv: string[] = [],
  rateLimit?: { limit: number; per: number },
  fair?: boolean,
): Promise<W2Result> {
  const jobs = ctx.sizes.processing;
  const what = `W2 c${concurrency}`;
  await ctx.admin.flushall();
  ctx.log(`${what}: enqueueing ${jobs} jobs`);
  await fillQueue(ctx.enqueuer, QUEUE, jobs);
  ctx.log(`${what}: draining`);
  const queues = [{ name: QUEUE, concurrency, ...(rateLimit ? { rateLimit } : {}), ...(fair ? { fair } : {}) }];
  const run = await runNode(ctx, { what, concurrency, queues, expect: jobs, execArgv });
  await ctx.admin.flushall();
  return { concurrency, jobs, ...run };
}
