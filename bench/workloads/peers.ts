// --peers: each peer (bench/peers/) through nexq's own workloads, on the same redis-server, in the
// same run, at the same sizes: W1 one at a time and in chunks of 1,000, W2 at concurrency 10 and
// 50, W3 on an idle worker (concurrency 10, jobs 5 ms apart). Every side runs in its own process.
import type { BenchContext } from '../context';
import { distribution, Distribution } from '../percentiles';
import { EnqueueSpec, peerEnqueue, peerWork, PeerWorkResult } from '../peer-run';
import type { Peer, PeerId } from '../peer-setup';
import { GAP_MS, SETTLE_MS } from './w3-latency';

/** W2's concurrencies for the peers (nexq's W2 also runs c30, W5's reference). */
export const PEER_CONCURRENCIES = [10, 50];

export interface PeerW1 {
  version: string;
  jobs: number;
  oneAtATime: { jobsPerSec: number; redisCpuSeconds: number };
  bulk: { jobsPerSec: number };
}

export interface PeerW2 extends PeerWorkResult {
  concurrency: number;
  jobs: number;
}

export interface PeerW3 {
  version: string;
  jobs: number;
  latencyMs: Distribution;
}

export interface PeerResult {
  peer: PeerId;
  /** e.g. "bee-queue 2.0.0", as the peer's process reports it. */
  version?: string;
  w1?: PeerW1;
  w2: PeerW2[];
  w3?: PeerW3;
}

export interface PeerWorkloads {
  w1: boolean;
  w2: boolean;
  w3: boolean;
}

/** Runs the peer's enqueue side and checks that exactly the enqueued jobs wait in its queue. */
export async function enqueueAndCount(ctx: BenchContext, peer: Peer, what: string, spec: EnqueueSpec) {
  await ctx.admin.flushall();
  ctx.log(`${what}: ${spec.count} jobs`);
  const result = await peerEnqueue(ctx, peer, what, spec);
  const queued = await ctx.admin.llen(peer.queuedKey);
  if (queued !== spec.warmup + spec.count)
    ctx.problems.push(`${what}: ${queued} jobs in ${peer.queuedKey} after enqueueing ${spec.warmup} + ${spec.count}`);
  return result;
}

async function w1(ctx: BenchContext, peer: Peer): Promise<PeerW1> {
  const n = ctx.sizes.enqueue;
  const warmup = ctx.sizes.enqueueWarmup;
  const one = await enqueueAndCount(ctx, peer, `${peer.id} W1 one at a time`, { how: 'one', count: n, warmup });
  const bulk = await enqueueAndCount(ctx, peer, `${peer.id} W1 bulk`, { how: 'bulk', count: n, warmup: warmup * 5 });
  await ctx.admin.flushall();
  return {
    version: one.version,
    jobs: n,
    oneAtATime: { jobsPerSec: n / one.seconds, redisCpuSeconds: one.redisCpuSeconds },
    bulk: { jobsPerSec: n / bulk.seconds },
  };
}

async function w2(ctx: BenchContext, peer: Peer, concurrency: number): Promise<PeerW2> {
  const jobs = ctx.sizes.processing;
  const what = `${peer.id} W2 c${concurrency}`;
  await enqueueAndCount(ctx, peer, `${what} fill`, { how: 'bulk', count: jobs, warmup: 0 });
  ctx.log(`${what}: draining`);
  const run = await peerWork(ctx, peer, { what, concurrency, expect: jobs });
  await ctx.admin.flushall();
  return { concurrency, jobs, ...run };
}

async function w3(ctx: BenchContext, peer: Peer): Promise<PeerW3> {
  const { latency: jobs, latencyWarmup: warmup } = ctx.sizes;
  const what = `${peer.id} W3`;
  await ctx.admin.flushall();
  ctx.log(`${what}: ${jobs} jobs, ${GAP_MS} ms apart, to an idle worker`);
  const spaced: EnqueueSpec = { how: 'spaced', count: jobs, warmup, gapMs: GAP_MS, settleMs: SETTLE_MS };
  const run = await peerWork(ctx, peer, {
    what,
    concurrency: 10,
    expect: warmup + jobs,
    whileRunning: () => peerEnqueue(ctx, peer, `${what} enqueue`, spaced),
  });
  const readings = run.latencies.filter((r) => r.index >= 0);
  if (readings.length !== jobs) ctx.problems.push(`${what}: ${readings.length} latency readings for ${jobs} jobs`);
  await ctx.admin.flushall();
  return { version: run.version, jobs, latencyMs: distribution(readings.map((r) => r.seconds * 1000)) };
}

/** Runs one peer through the wanted workloads; a workload that fails is a problem, the others still run. */
export async function runPeer(ctx: BenchContext, peer: Peer, wanted: PeerWorkloads): Promise<PeerResult> {
  const result: PeerResult = { peer: peer.id, w2: [] };
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (err) {
      ctx.problems.push(`${peer.id} ${name} did not finish: ${(err as Error).message}`);
      return undefined;
    }
  };
  if (wanted.w1 && peer.enqueues) result.w1 = await step('W1', () => w1(ctx, peer));
  if (wanted.w2) {
    for (const c of PEER_CONCURRENCIES) {
      const run = await step(`W2 c${c}`, () => w2(ctx, peer, c));
      if (run) result.w2.push(run);
    }
  }
  if (wanted.w3) {
    result.w3 = await step('W3', () => w3(ctx, peer));
  }
  result.version = result.w1?.version ?? result.w2.at(0)?.version ?? result.w3?.version;
  return result;
}
