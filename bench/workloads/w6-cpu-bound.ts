// W6 CPU-bound jobs (issue 30): jobs that each spend about JOB_MS of CPU (a hash chain,
// bench/cpu-work.ts, calibrated once at the start so every runner gets the same iteration count
// in its jobs' args or data), drained from a pre-filled queue by:
//  - nexq, one node with one worker thread per core;
//  - with --peers, bee-queue and BullMQ in one process, and in as many processes as nexq has
//    threads (how a single-threaded library uses the cores), and BullMQ's worker-thread sandbox
//    (one process, as many threads as nexq's).
// Read: jobs/s, the peak RSS of every process involved summed, and CPU per job.
import os from 'node:os';
import { calibrateIterations, Calibration } from '../cpu-work';
import { BenchContext, QUEUE } from '../context';
import { CHUNK, fillQueue } from '../fill';
import { runNode } from '../node-run';
import { peerFleet } from '../peer-fleet';
import type { Peer, PeerId } from '../peer-setup';
import { treePeakRssMb } from '../proc';
import { enqueueAndCount } from './peers';

/** What one job costs, ms of CPU, on this machine (calibrated). */
export const JOB_MS = 2;
/** Each process's concurrency (nexq's queue's): a slot waits on CPU, so it only sets how many are fetched ahead. */
export const W6_CONCURRENCY = 10;
/** nexq's job class (bench/jobs/CpuHash.ts). */
const JOB_CLASS = 'CpuHash';
/** The peers W6 runs: the JavaScript ones, whose job is the same hash chain in the same runtime. */
const W6_PEERS: readonly PeerId[] = ['bee-queue', 'bullmq', 'bullmq-threads'];

export interface W6Run {
  /** `nexq` or the peer. */
  runner: 'nexq' | PeerId;
  version: string;
  processes: number;
  /** Threads running jobs in each process (nexq's, BullMQ's sandbox); absent: the main thread. */
  threads?: number;
  concurrency: number;
  seconds: number;
  jobsInWindow: number;
  jobsPerSec: number;
  /** CPU seconds of every process involved, and of redis-server, over the window. */
  processCpuSeconds: number;
  redisCpuSeconds: number;
  /** Peak RSS (VmHWM) of every process involved, summed, MB. */
  peakRssMb: number;
  /** The machine's 1-minute load average as the run ended: other work moves every figure. */
  loadAverage: number;
}

export interface W6Result {
  jobs: number;
  calibration: Calibration;
  /** nexq's threads: one per core; the peers' process count beside it. */
  threads: number;
  runs: W6Run[];
  /** Peers asked for that W6 does not run (Sidekiq: its job would be Ruby's hash, another cost). */
  skipped: PeerId[];
}

type Measured = Omit<W6Run, 'loadAverage'>;

async function nexqRun(ctx: BenchContext, jobs: number, iterations: number, threads: number): Promise<Measured> {
  const what = `W6 nexq, ${threads} threads`;
  await ctx.admin.flushall();
  ctx.log(`${what}: enqueueing ${jobs} jobs`);
  await fillQueue(ctx.enqueuer, QUEUE, jobs, CHUNK, JOB_CLASS, [iterations]);
  ctx.log(`${what}: draining`);
  let sampledTreeMb = 0;
  const run = await runNode(ctx, {
    what,
    concurrency: W6_CONCURRENCY,
    expect: jobs,
    threads,
    // The node has no child processes today; were it to start some, they count here.
    sample: (child) => {
      sampledTreeMb = Math.max(sampledTreeMb, treePeakRssMb(child.pid));
    },
    sampleMs: 500,
  });
  await ctx.admin.flushall();
  return {
    runner: 'nexq',
    version: 'nexq',
    processes: 1,
    threads,
    concurrency: W6_CONCURRENCY,
    seconds: run.seconds,
    jobsInWindow: run.jobsInWindow,
    jobsPerSec: run.jobsPerSec,
    processCpuSeconds: run.nodeCpuSeconds,
    redisCpuSeconds: run.redisCpuSeconds,
    peakRssMb: Math.max(sampledTreeMb, run.nodePeakRssMb),
  };
}

async function peerRun(
  ctx: BenchContext,
  peer: Peer,
  jobs: number,
  iterations: number,
  shape: { processes: number; concurrency: number; threads?: number },
): Promise<Measured> {
  const what = `W6 ${peer.id} × ${shape.processes} process${shape.processes > 1 ? 'es' : ''}`;
  await enqueueAndCount(ctx, peer, `${what} fill`, { how: 'bulk', count: jobs, warmup: 0, jobData: { iterations } });
  ctx.log(`${what}: draining`);
  const run = await peerFleet(ctx, peer, {
    what,
    processes: shape.processes,
    concurrency: shape.concurrency,
    expect: jobs,
  });
  await ctx.admin.flushall();
  return { runner: peer.id, ...shape, ...run };
}

/** The runs of W6 for nexq and `peers`; a run that fails is a problem, the others still run. */
export async function runW6(ctx: BenchContext, jobs: number, peers: Peer[]): Promise<W6Result> {
  const calibration = calibrateIterations(JOB_MS);
  const threads = os.availableParallelism();
  ctx.log(
    `W6: ${calibration.iterations} SHA-256 hashes per job (${calibration.microsPerHash.toFixed(2)} µs each, ~${JOB_MS} ms a job), ${jobs} jobs`,
  );
  const runs: W6Run[] = [];
  const step = async (name: string, fn: () => Promise<Measured>) => {
    try {
      runs.push({ ...(await fn()), loadAverage: os.loadavg()[0] });
    } catch (err) {
      ctx.problems.push(`${name} did not finish: ${(err as Error).message}`);
    }
  };
  await step('W6 nexq', () => nexqRun(ctx, jobs, calibration.iterations, threads));
  for (const peer of peers.filter((p) => W6_PEERS.includes(p.id))) {
    if (peer.id === 'bullmq-threads') {
      // One thread per concurrent job: as many job threads as nexq's.
      const shape = { processes: 1, concurrency: threads, threads };
      await step(`W6 ${peer.id}`, () => peerRun(ctx, peer, jobs, calibration.iterations, shape));
      continue;
    }
    for (const processes of new Set([1, threads])) {
      const shape = { processes, concurrency: W6_CONCURRENCY };
      await step(`W6 ${peer.id} × ${processes}`, () => peerRun(ctx, peer, jobs, calibration.iterations, shape));
    }
  }
  const skipped = peers.map((p) => p.id).filter((id) => !W6_PEERS.includes(id));
  return { jobs, calibration, threads, runs, skipped };
}
