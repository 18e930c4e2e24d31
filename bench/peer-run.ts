// One measured run of a peer (bench/peers/) in its own process, as node-run.ts does for nexq: its
// enqueue side (W1, a fill, W3's spaced jobs) or its work side (a drain at a concurrency, or W3's
// idle node), with the same readings — CPU of the process and of redis-server from ready to done,
// its peak RSS, Redis commands per job — and where every job ended up afterwards (W6's fleet of
// processes, peer-fleet.ts, shares the environment, the log and the checks).
import type { BenchContext } from './context';
import { CommandsPerJob, perJob, redisCounts } from './commandstats';
import { NodeChild } from './node-child';
import type { Peer } from './peer-setup';
import { cpuSeconds, memory } from './proc';
import type { LatencyReading } from './protocol';

/** A timed enqueue of 20,000 jobs one at a time takes seconds; this only guards a hang. */
const ENQUEUE_TIMEOUT_MS = 300_000;
const CHUNK = 1000;

export type EnqueueHow = 'one' | 'bulk' | 'spaced';

export interface EnqueueSpec {
  how: EnqueueHow;
  count: number;
  /** Enqueued before timing (W3: spaced, with negative indexes). */
  warmup: number;
  gapMs?: number;
  settleMs?: number;
  /** Merged into every job's data (W6: `iterations` of the hash chain). */
  jobData?: Record<string, unknown>;
}

export interface PeerWorkResult {
  version: string;
  /** From ready to the last finished job, s, and the jobs finished in that window. */
  seconds: number;
  jobsInWindow: number;
  jobsPerSec: number;
  /** CPU seconds in the window: the peer's process (all threads) and redis-server. */
  processCpuSeconds: number;
  redisCpuSeconds: number;
  /** The process's peak resident memory (VmHWM) over its life, MB. */
  peakRssMb: number;
  commands: CommandsPerJob;
  latencies: LatencyReading[];
}

export function env(ctx: BenchContext, peer: Peer, role: 'enqueue' | 'work', extra: object): NodeJS.ProcessEnv {
  const config = { peer: peer.id, role, redisUrl: ctx.server.url, redisPid: ctx.server.pid, chunk: CHUNK, ...extra };
  return { NEXQ_BENCH_PEER: JSON.stringify(config) };
}

/** The peer's log lines as problems, each once with its count (BullMQ's threads repeat theirs). */
export function keepLog(ctx: BenchContext, what: string, child: NodeChild): void {
  const counts = new Map<string, number>();
  for (const line of child.log) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const [line, n] of counts) ctx.problems.push(`${what} log${n > 1 ? ` (×${n})` : ''}: ${line}`);
}

/** Runs the peer's enqueue side; resolves to the timed part's seconds and redis-server's CPU in them. */
export async function peerEnqueue(
  ctx: BenchContext,
  peer: Peer,
  what: string,
  spec: EnqueueSpec,
): Promise<{ version: string; seconds: number; redisCpuSeconds: number }> {
  const { command, args } = peer.command('enqueue', 0);
  const { child, version } = await NodeChild.spawnPeer(command, args, env(ctx, peer, 'enqueue', spec), peer.ignore);
  try {
    const { seconds, redisCpuSeconds } = await child.next('enqueued', ENQUEUE_TIMEOUT_MS);
    await child.exited();
    return { version, seconds, redisCpuSeconds };
  } finally {
    child.kill();
    keepLog(ctx, what, child);
  }
}

async function countKey(ctx: BenchContext, key: string, type: Peer['leftKeys'][number][1]): Promise<number> {
  if (type === 'list') return ctx.admin.llen(key);
  if (type === 'set') return ctx.admin.scard(key);
  if (type === 'zset') return ctx.admin.zcard(key);
  return ctx.admin.hlen(key);
}

/** Describes what is wrong after a drain, or undefined when all `expected` jobs finished once and none is left. */
export async function checkPeerRun(
  ctx: BenchContext,
  peer: Peer,
  what: string,
  expected: number,
  acked: number,
  failed: number,
): Promise<string | undefined> {
  const issues: string[] = [];
  if (acked !== expected) issues.push(`finished ${acked} of ${expected}`);
  if (failed > 0) issues.push(`${failed} failed`);
  const left: string[] = [];
  for (const [key, type] of peer.leftKeys) {
    const n = await countKey(ctx, key, type);
    if (n) left.push(`${key} ${n}`);
  }
  if (left.length) issues.push(`left in Redis: ${left.join(', ')}`);
  if (peer.processedKey) {
    const processed = Number((await ctx.admin.get(peer.processedKey)) ?? 0);
    if (processed !== expected) issues.push(`${peer.processedKey} is ${processed} after stop`);
  }
  return issues.length ? `${what}: ${issues.join('; ')}` : undefined;
}

/** Starts the peer's work side, waits until `expect` jobs finished, reads, stops it, and checks Redis. */
export async function peerWork(
  ctx: BenchContext,
  peer: Peer,
  options: { what: string; concurrency: number; expect: number; whileRunning?: () => Promise<unknown> },
): Promise<PeerWorkResult> {
  const { admin, server } = ctx;
  const countsBefore = await redisCounts(admin);
  const { command, args } = peer.command('work', options.concurrency);
  const config = { concurrency: options.concurrency, expect: options.expect };
  const { child, version } = await NodeChild.spawnPeer(command, args, env(ctx, peer, 'work', config), peer.ignore);
  try {
    const ready = await child.next('ready');
    const redisCpuAtReady = cpuSeconds(server.pid);
    const progress = (acked: number, failed: number) =>
      ctx.log(`  ${options.what}: ${acked + failed}/${options.expect}`);
    const [done] = await Promise.all([child.waitDone(progress), options.whileRunning?.()]);
    const redisCpuSeconds = cpuSeconds(server.pid) - redisCpuAtReady;
    const { peakRssMb } = memory(child.pid);
    const countsAfter = await redisCounts(admin);
    await child.stop();
    const problem = await checkPeerRun(ctx, peer, options.what, options.expect, done.acked, done.failed);
    if (problem) ctx.problems.push(problem);
    keepLog(ctx, options.what, child);
    const seconds = (done.at - ready.at) / 1000;
    const jobsInWindow = done.acked + done.failed - ready.finishedAtReady;
    const cpu = (c: { user: number; system: number }) => (c.user + c.system) / 1e6;
    return {
      version,
      seconds,
      jobsInWindow,
      jobsPerSec: jobsInWindow / seconds,
      processCpuSeconds: cpu(done.cpu) - cpu(ready.cpu),
      redisCpuSeconds,
      peakRssMb,
      commands: perJob(countsBefore, countsAfter, options.expect),
      latencies: done.latencies,
    };
  } catch (err) {
    ctx.problems.push(`${options.what}: ${(err as Error).message}`);
    child.kill();
    keepLog(ctx, options.what, child);
    throw err;
  }
}
