// W8 fairness (issue 34): one group with 10,000 waiting jobs, then 50 groups of 10 enqueued after
// it, drained at concurrency 10 by a node whose queue is `fair: true`, and the same jobs by a node
// whose queue is plain. Read: jobs/s of each (the fair queue's cost), the small groups' wait (each
// job's start − the node ready, from the Latency fixture's readings), and where the big group's
// 1,000th job started against the small groups' last ones (by start time).
import { BenchContext, QUEUE } from '../context';
import { CHUNK } from '../fill';
import { NodeRunResult, runNode } from '../node-run';
import { distribution, Distribution } from '../percentiles';

const BIG = 10_000;
const SMALL_GROUPS = 50;
const PER_SMALL = 10;
const CONCURRENCY = 10;

export interface W8Result {
  jobs: number;
  concurrency: number;
  fair: NodeRunResult;
  plain: NodeRunResult;
  /** Small groups' jobs: seconds from the node ready to the job's start, in the fair queue and the plain one. */
  smallWait: { fair: Distribution; plain: Distribution };
  /** Big-group jobs started before the last small group's last job (fair queue): under 1,000 is the target. */
  bigBeforeLastSmall: number;
}

/** The jobs: Latency(index, 0), so each reading's `seconds` is its start time (epoch s); small indexes ≥ BIG. */
async function fill(ctx: BenchContext): Promise<number> {
  const jobs = [
    ...Array.from({ length: BIG }, (_, i) => ({ index: i, group: 'big' })),
    ...Array.from({ length: SMALL_GROUPS * PER_SMALL }, (_, i) => ({
      index: BIG + i,
      group: `small-${Math.floor(i / PER_SMALL)}`,
    })),
  ];
  for (let at = 0; at < jobs.length; at += CHUNK)
    await ctx.enqueuer.enqueueAll(
      jobs
        .slice(at, at + CHUNK)
        .map(({ index, group }) => ({ queue: QUEUE, class: 'Latency', args: [index, 0], options: { group } })),
    );
  return jobs.length;
}

async function drain(ctx: BenchContext, fair: boolean): Promise<NodeRunResult> {
  await ctx.admin.flushall();
  const jobs = await fill(ctx);
  const what = `W8 ${fair ? 'fair' : 'plain'} c${CONCURRENCY}`;
  ctx.log(`${what}: draining ${jobs} jobs`);
  const queues = [{ name: QUEUE, concurrency: CONCURRENCY, ...(fair ? { fair: true } : {}) }];
  const run = await runNode(ctx, { what, concurrency: CONCURRENCY, queues, expect: jobs, latency: true });
  await ctx.admin.flushall();
  return run;
}

function smallWaits(run: NodeRunResult): Distribution {
  const readyAt = run.ready.at / 1000;
  return distribution(run.done.latencies.filter((r) => r.index >= BIG).map((r) => r.seconds - readyAt));
}

export async function runW8(ctx: BenchContext): Promise<W8Result> {
  const fair = await drain(ctx, true);
  const plain = await drain(ctx, false);
  const starts = fair.done.latencies;
  const lastSmall = Math.max(...starts.filter((r) => r.index >= BIG).map((r) => r.seconds));
  return {
    jobs: BIG + SMALL_GROUPS * PER_SMALL,
    concurrency: CONCURRENCY,
    fair,
    plain,
    smallWait: { fair: smallWaits(fair), plain: smallWaits(plain) },
    bigBeforeLastSmall: starts.filter((r) => r.index < BIG && r.seconds < lastSmall).length,
  };
}
