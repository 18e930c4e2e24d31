// W6's peer runs: several work processes of one peer (bench/peers/) draining one pre-filled queue
// together, as a single-threaded queue library is spread over a machine's cores. Each process
// reports its finished count and the time of its latest finish every PROGRESS_MS; the run ends
// when the counts add up to the jobs, at the latest of those finishes. The readings are those of
// one process (peer-run.ts), summed: CPU of each process and its descendants from its own ready
// to the end, redis-server's CPU from the first ready, and the peak RSS of every process involved.
import type { BenchContext } from './context';
import { NodeChild, ReadyMessage, STALL_MS } from './node-child';
import { checkPeerRun, env, keepLog } from './peer-run';
import type { Peer } from './peer-setup';
import { cpuSeconds, treeCpuSeconds, treePeakRssMb } from './proc';

/** How often each process reports; the run's end is read from the reports, not at this grain. */
const PROGRESS_MS = 100;
const LOG_MS = 1000;

export interface FleetOptions {
  what: string;
  processes: number;
  /** Each process's concurrency. */
  concurrency: number;
  /** Jobs in the queue: the run is over when the processes finished this many together. */
  expect: number;
}

export interface FleetResult {
  version: string;
  processes: number;
  /** From the first process ready to the last job finished, s, and the jobs finished in it. */
  seconds: number;
  jobsInWindow: number;
  jobsPerSec: number;
  /** CPU seconds of every process (and its descendants), each from its ready to the end. */
  processCpuSeconds: number;
  redisCpuSeconds: number;
  /** The peak RSS (VmHWM) of every process involved, summed, MB. */
  peakRssMb: number;
}

interface Member {
  child: NodeChild;
  ready?: ReadyMessage;
  cpuAtReady: number;
  finished: number;
  failed: number;
  lastAt: number;
}

/** Resolves once the members' progress reports add up to `expect` finished jobs. */
function drained(ctx: BenchContext, members: Member[], options: FleetOptions): Promise<void> {
  const total = () => members.reduce((n, m) => n + m.finished, 0);
  return new Promise((resolve, reject) => {
    let last = -1;
    let lastMove = Date.now();
    let lastLog = Date.now();
    const stops: (() => void)[] = [];
    function end(err?: Error): void {
      clearInterval(watchdog);
      for (const stop of stops) stop();
      if (err) reject(err);
      else resolve();
    }
    const watchdog = setInterval(() => {
      const n = total();
      if (n !== last) [last, lastMove] = [n, Date.now()];
      if (Date.now() - lastLog >= LOG_MS) {
        lastLog = Date.now();
        ctx.log(`  ${options.what}: ${n}/${options.expect}`);
      }
      if (Date.now() - lastMove > STALL_MS)
        end(new Error(`no job finished for ${STALL_MS / 1000} s (finished so far: ${n})`));
    }, PROGRESS_MS);
    for (const member of members)
      stops.push(
        member.child.onMessage((msg) => {
          if (msg.type === 'progress') {
            member.finished = msg.acked + msg.failed;
            member.failed = msg.failed;
            member.lastAt = msg.lastAt ?? member.lastAt;
            if (total() >= options.expect) end();
          } else if (msg.type === 'error') end(new Error(msg.message));
        }),
      );
  });
}

/**
 * Starts `processes` work processes of `peer`, waits until they drained `expect` jobs together,
 * reads them, stops them and checks Redis.
 */
export async function peerFleet(ctx: BenchContext, peer: Peer, options: FleetOptions): Promise<FleetResult> {
  const { command, args } = peer.command('work', options.concurrency);
  const config = { concurrency: options.concurrency, expect: options.expect, progressMs: PROGRESS_MS };
  const spawned = await Promise.allSettled(
    Array.from({ length: options.processes }, () =>
      NodeChild.spawnPeer(command, args, env(ctx, peer, 'work', config), peer.ignore),
    ),
  );
  const members: Member[] = spawned.flatMap((s) =>
    s.status === 'fulfilled' ? [{ child: s.value.child, cpuAtReady: 0, finished: 0, failed: 0, lastAt: 0 }] : [],
  );
  try {
    const failure = spawned.find((s) => s.status === 'rejected');
    if (failure) throw failure.reason;
    const done = drained(ctx, members, options);
    done.catch(() => undefined); // awaited below; a ready that fails first must not leave it unhandled
    let redisCpuAtFirstReady: number | undefined;
    await Promise.all(
      members.map(async (member) => {
        member.ready = await member.child.next('ready');
        member.cpuAtReady = treeCpuSeconds(member.child.pid);
        redisCpuAtFirstReady ??= cpuSeconds(ctx.server.pid);
      }),
    );
    await done;
    const redisCpuSeconds = cpuSeconds(ctx.server.pid) - (redisCpuAtFirstReady ?? 0);
    const processCpuSeconds = members.reduce((s, m) => s + treeCpuSeconds(m.child.pid) - m.cpuAtReady, 0);
    const peakRssMb = members.reduce((s, m) => s + treePeakRssMb(m.child.pid), 0);
    await Promise.all(members.map((m) => m.child.stop()));
    const finished = members.reduce((n, m) => n + m.finished, 0);
    const failed = members.reduce((n, m) => n + m.failed, 0);
    const problem = await checkPeerRun(ctx, peer, options.what, options.expect, finished - failed, failed);
    if (problem) ctx.problems.push(problem);
    const first = members.reduce((a, b) => (b.ready!.at < a.ready!.at ? b : a));
    const seconds = (Math.max(...members.map((m) => m.lastAt)) - first.ready!.at) / 1000;
    const jobsInWindow = options.expect - first.ready!.finishedAtReady;
    return {
      version: spawned.map((s) => (s.status === 'fulfilled' ? s.value.version : '')).find(Boolean) ?? peer.id,
      processes: members.length,
      seconds,
      jobsInWindow,
      jobsPerSec: jobsInWindow / seconds,
      processCpuSeconds,
      redisCpuSeconds,
      peakRssMb,
    };
  } catch (err) {
    ctx.problems.push(`${options.what}: ${(err as Error).message}`);
    for (const member of members) member.child.kill();
    throw err;
  } finally {
    for (const member of members) keepLog(ctx, options.what, member.child);
  }
}
