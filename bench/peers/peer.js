// One JavaScript peer of nexq's bench as its own process, so its CPU and RSS are its own:
// `node peer.js` with NEXQ_BENCH_PEER = {"peer", "role", ...} (see bench/peer-process.ts).
// Roles: "enqueue" (W1, W2's and W6's fills, W3's spaced jobs) and "work" (drain or latency).
// `jobData` is merged into every enqueued job's data (W6: the hash chain's `iterations`);
// `progressMs` sets how often the work side reports (W6 sums several processes' reports).
// It speaks JSON lines on stdout: the messages of nexq's node child (bench/protocol.ts), plus
// `version` and `enqueued`; anything else it prints is a log line, listed as a problem.
'use strict';
const { readFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const bullmq = require('./bullmq');

const PEERS = {
  'bee-queue': () => require('./bee-queue'),
  bullmq: () => bullmq.inProcess,
  'bullmq-threads': () => bullmq.workerThreads,
};
const PROGRESS_MS = 1000;

const config = JSON.parse(process.env.NEXQ_BENCH_PEER || '{}');
const now = () => performance.timeOrigin + performance.now();
const mono = () => Number(process.hrtime.bigint() / 1000n);
const emit = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** redis-server's CPU seconds (user + system) from /proc, as the bench reads it. */
function redisCpuSeconds() {
  const stat = readFileSync(`/proc/${config.redisPid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function enqueueBulk(producer, from, count) {
  for (let done = 0; done < count; done += config.chunk) {
    const n = Math.min(config.chunk, count - done);
    await producer.bulk(Array.from({ length: n }, (_, k) => ({ i: from + done + k, ...config.jobData })));
  }
}

async function enqueueSpaced(producer, from, count) {
  for (let i = 0; i < count; i++) {
    await producer.one({ i: from + i, at: mono() / 1000 }); // monotonic ms, as handler.js reads it
    await sleep(config.gapMs);
  }
}

/** how: "one" (awaited one at a time), "bulk" (chunks), "spaced" (W3: gapMs apart, stamped). */
async function enqueue(peer) {
  const producer = await peer.producer(config.redisUrl);
  const { how, count, warmup } = config;
  if (how === 'spaced') {
    await sleep(config.settleMs);
    await enqueueSpaced(producer, -warmup, warmup);
    await sleep(config.settleMs);
  } else if (how === 'one') {
    for (let i = 0; i < warmup; i++) await producer.one({ i: -1 - i });
  } else {
    await enqueueBulk(producer, -warmup, warmup);
  }
  const redisBefore = redisCpuSeconds();
  const started = performance.now();
  if (how === 'one') for (let i = 0; i < count; i++) await producer.one({ i });
  else if (how === 'bulk') await enqueueBulk(producer, 0, count);
  else await enqueueSpaced(producer, 0, count);
  const seconds = (performance.now() - started) / 1000;
  emit({ type: 'enqueued', seconds, redisCpuSeconds: redisCpuSeconds() - redisBefore });
  await producer.close();
}

async function work(peer) {
  let finished = 0;
  let failed = 0;
  let readyAt;
  let last;
  let lastAt; // the latest finish, for progress reports
  const latencies = [];
  const maybeDone = () => {
    if (readyAt === undefined || !last) return;
    const late = last.at < readyAt; // every job finished before the worker was ready
    emit({
      type: 'done',
      at: late ? readyAt : last.at,
      mono: late ? mono() : last.mono,
      acked: finished,
      failed,
      cpu: last.cpu,
      latencies,
    });
    last = undefined;
  };
  const worker = await peer.worker(config.redisUrl, config.concurrency, (ok, result, err) => {
    if (ok) finished++;
    else {
      failed++;
      console.error(`job failed: ${err?.message ?? err}`);
    }
    if (result) latencies.push(result);
    lastAt = now();
    if (finished + failed === config.expect) {
      last = { at: now(), mono: mono(), cpu: process.cpuUsage() };
      maybeDone();
    }
  });
  readyAt = now();
  emit({
    type: 'ready',
    nodeId: config.peer,
    at: readyAt,
    mono: mono(),
    finishedAtReady: finished + failed,
    cpu: process.cpuUsage(),
  });
  maybeDone();
  const progress = setInterval(
    () => emit({ type: 'progress', acked: finished, failed, lastAt }),
    config.progressMs ?? PROGRESS_MS,
  );
  process.once('SIGTERM', () => {
    clearInterval(progress);
    worker.close().then(() => {
      emit({ type: 'stopped', acked: finished, failed });
      process.exit(0);
    });
  });
}

async function main() {
  const load = PEERS[config.peer];
  if (!load) throw new Error(`unknown peer ${JSON.stringify(config.peer)} (one of ${Object.keys(PEERS).join(', ')})`);
  const peer = load();
  emit({ type: 'version', version: peer.version });
  if (config.role === 'enqueue') {
    await enqueue(peer);
    process.exit(0);
  } else if (config.role === 'work') await work(peer);
  else throw new Error(`unknown role ${JSON.stringify(config.role)}`);
}

main().catch((err) => {
  emit({ type: 'error', message: err.stack || String(err) });
  process.exit(1);
});
