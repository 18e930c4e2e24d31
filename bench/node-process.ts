// A nexq worker node as its own OS process, so its RSS and CPU are its own. Started by
// node-child.ts with child_process.fork; configuration in NEXQ_BENCH_NODE (see protocol.ts).
//
// Completion is counted by a middleware on the node's main thread (the public `middleware` option):
// `afterSuccess` runs once the job's ack (LREM) resolved, so the count reaching `expect` is the
// moment of the last ack. Counting is an in-memory increment; the handler never touches Redis.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BroadcastChannel } from 'node:worker_threads';
import { Nexq } from '../src/nexq';
import type { Middleware } from '../src/run/middleware';
import { ChildMessage, LATENCY_CHANNEL, LatencyReading, NodeChildConfig, ParentMessage } from './protocol';

const PROGRESS_MS = 1000;
/** Readings may trail the last ack a little (another channel than piscina's); wait this long at most. */
const LATENCY_GRACE_MS = 5000;

const config = JSON.parse(process.env.NEXQ_BENCH_NODE ?? '{}') as NodeChildConfig;
const now = () => performance.timeOrigin + performance.now();
const mono = () => Number(process.hrtime.bigint() / 1000n);
const send = (msg: ChildMessage) => process.send?.(msg);

let acked = 0;
let failed = 0;
let lastAt = 0;
let lastMono = 0;
let stopping = false;
let readyAt: number | undefined;
let doneSent = false;
let graceTimer: NodeJS.Timeout | undefined;
const latencies: LatencyReading[] = [];

function finished(): void {
  if (acked + failed === config.expect) {
    lastAt = now();
    lastMono = mono();
  }
  maybeDone();
}

function maybeDone(force = false): void {
  if (doneSent || readyAt === undefined || acked + failed < config.expect) return;
  if (config.latency && latencies.length < acked && !force) {
    graceTimer ??= setTimeout(() => maybeDone(true), LATENCY_GRACE_MS);
    return;
  }
  doneSent = true;
  clearTimeout(graceTimer);
  const late = lastAt < readyAt; // every job finished before Nexq.start resolved
  send({
    type: 'done',
    at: late ? readyAt : lastAt,
    mono: late ? mono() : lastMono,
    acked,
    failed,
    cpu: process.cpuUsage(),
    latencies,
  });
}

const counter: Middleware = {
  name: 'bench-counter',
  afterSuccess: () => {
    acked++;
    finished();
  },
  afterFailure: () => {
    failed++;
    finished();
  },
};

async function main(): Promise<void> {
  if (config.latency) {
    const channel = new BroadcastChannel(LATENCY_CHANNEL);
    channel.unref();
    channel.onmessage = (event) => {
      latencies.push((event as MessageEvent).data as LatencyReading);
      maybeDone();
    };
  }
  const nexq = await Nexq.start({
    redis: config.redisUrl,
    namespace: config.namespace,
    queues: config.queues,
    ...(config.threads ? { threads: config.threads } : {}),
    jobsDir: path.join(__dirname, 'jobs'),
    logLevel: 'warn',
    middleware: [counter],
  });
  readyAt = now();
  send({
    type: 'ready',
    nodeId: nexq.node.ctx.config.nodeId,
    at: readyAt,
    mono: mono(),
    finishedAtReady: acked + failed,
    cpu: process.cpuUsage(),
  });
  const progress = setInterval(() => send({ type: 'progress', acked, failed }), PROGRESS_MS);
  progress.unref();
  maybeDone();
  process.on('message', (posted: unknown) => {
    const msg = posted as Partial<ParentMessage> | null | undefined;
    if (msg?.type !== 'stop') return;
    stopping = true;
    clearInterval(progress);
    nexq.stop().then(
      () => {
        send({ type: 'stopped', acked, failed });
        process.disconnect();
        // A clean exit (not process.exit) lets --cpu-prof write its profile; this only guards a hang.
        setTimeout(() => process.exit(3), 15_000).unref();
      },
      (err: unknown) => {
        process.stderr.write(`bench node: stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  });
}

// The bench went away without stopping this node: do not outlive it.
process.on('disconnect', () => {
  if (!stopping) process.exit(2);
});

main().catch((err: unknown) => {
  send({ type: 'error', message: (err as Error).stack ?? String(err) });
  process.exit(1);
});
