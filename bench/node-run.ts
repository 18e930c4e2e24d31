// One measured run of a worker node in its own process: fork it, read Redis's counters and both
// processes' CPU at `ready` and at `done`, check where every job ended up, stop it gracefully.
// W2, W3, W4 and the profile are this plus what they do while it runs.
import { performance } from 'node:perf_hooks';
import { BenchContext, NAMESPACE, QUEUE } from './context';
import { CommandsPerJob, perJob, redisCounts } from './commandstats';
import { DoneMessage, NodeChild, ReadyMessage } from './node-child';
import type { BenchQueue } from './protocol';
import { cpuByThread, cpuSeconds, memory } from './proc';
import { checkRun, JobPlaces, jobPlaces, processedStat } from './verify';

export interface NodeRunOptions {
  /** Names the run in progress lines and problems, e.g. "W2 c50". */
  what: string;
  concurrency: number;
  /** The queues the node serves; one, QUEUE at `concurrency`, unless given. */
  queues?: BenchQueue[];
  /** Jobs that will be in the queue: the run is done when this many were acked or failed. */
  expect: number;
  latency?: boolean;
  /** The node's worker threads; nexq's default (one per core) when absent. */
  threads?: number;
  execArgv?: string[];
  /** Runs once the node is ready, alongside the wait for `done` (W3 enqueues from here). */
  whileRunning?: (child: NodeChild) => Promise<void>;
  /** Called every `sampleMs` while the node runs (W4 samples memory). */
  sample?: (child: NodeChild) => void | Promise<void>;
  sampleMs?: number;
}

export interface NodeRunResult {
  nodeId: string;
  ready: ReadyMessage;
  done: DoneMessage;
  /** From fork to Nexq.start resolved, s. */
  bootSeconds: number;
  /** From Nexq.start resolved to the last ack, s, and the jobs finished in that window. */
  seconds: number;
  jobsInWindow: number;
  jobsPerSec: number;
  /** CPU seconds in the window: the node process (all threads), by thread, and redis-server. */
  nodeCpuSeconds: number;
  nodeCpuByThread: { main: number; others: number };
  redisCpuSeconds: number;
  /** The node's resident memory at done, and its peak (VmHWM) over its life, MB. */
  nodeRssMb: number;
  nodePeakRssMb: number;
  /** Redis commands per job from fork to done (boot, heartbeat, stats flushes included). */
  commands: CommandsPerJob;
  places: JobPlaces;
  processedStat: number;
}

const cpuOf = (c: { user: number; system: number }) => (c.user + c.system) / 1e6;

/** Threads that ended in between are missed by the `others` difference; piscina's do not end here. */
function threadDelta(before: { main: number; others: number }, after: { main: number; others: number }) {
  return { main: after.main - before.main, others: after.others - before.others };
}

export async function runNode(ctx: BenchContext, options: NodeRunOptions): Promise<NodeRunResult> {
  const { admin, server } = ctx;
  const queues = options.queues ?? [{ name: QUEUE, concurrency: options.concurrency }];
  const names = queues.map((q) => q.name);
  const countsBefore = await redisCounts(admin);
  const forkedAt = performance.now();
  const { child, ready } = await NodeChild.start(
    {
      redisUrl: server.url,
      namespace: NAMESPACE,
      queues,
      expect: options.expect,
      latency: options.latency ?? false,
      threads: options.threads,
    },
    options.execArgv,
  );
  const bootSeconds = (performance.now() - forkedAt) / 1000;
  const redisCpuAtReady = cpuSeconds(server.pid);
  const threadsAtReady = cpuByThread(child.pid);
  let sampler: NodeJS.Timeout | undefined;
  const { sample } = options;
  // A sample that fails is only a missing sample (the node may be stopping).
  if (sample)
    sampler = setInterval(() => {
      Promise.resolve(sample(child)).catch(() => {});
    }, options.sampleMs ?? 250);
  try {
    const progress = (acked: number, failed: number) =>
      ctx.log(`  ${options.what}: ${acked + failed}/${options.expect}`);
    const [done] = await Promise.all([child.waitDone(progress), options.whileRunning?.(child)]);
    clearInterval(sampler);
    const redisCpuSeconds = cpuSeconds(server.pid) - redisCpuAtReady;
    const nodeCpuByThread = threadDelta(threadsAtReady, cpuByThread(child.pid));
    const mem = memory(child.pid);
    const countsAfter = await redisCounts(admin);
    const places = await jobPlaces(admin, ready.nodeId, names);
    await child.stop();
    const processed = await processedStat(admin);
    const problem = checkRun(options.what, options.expect, done.acked, done.failed, places, processed);
    if (problem) ctx.problems.push(problem);
    for (const line of child.log) ctx.problems.push(`${options.what} node log: ${line}`);
    const seconds = (done.at - ready.at) / 1000;
    const jobsInWindow = done.acked + done.failed - ready.finishedAtReady;
    return {
      nodeId: ready.nodeId,
      ready,
      done,
      bootSeconds,
      seconds,
      jobsInWindow,
      jobsPerSec: jobsInWindow / seconds,
      nodeCpuSeconds: cpuOf(done.cpu) - cpuOf(ready.cpu),
      nodeCpuByThread,
      redisCpuSeconds,
      nodeRssMb: mem.rssMb,
      nodePeakRssMb: mem.peakRssMb,
      commands: perJob(countsBefore, countsAfter, options.expect),
      places,
      processedStat: processed,
    };
  } catch (err) {
    clearInterval(sampler);
    const places = await jobPlaces(admin, ready.nodeId, names).catch(() => undefined);
    ctx.problems.push(`${options.what}: ${(err as Error).message}; jobs in Redis then: ${JSON.stringify(places)}`);
    for (const line of child.log) ctx.problems.push(`${options.what} node log: ${line}`);
    child.kill();
    throw err;
  }
}
