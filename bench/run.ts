// `npm run bench`: starts a private redis-server, runs the workloads of issue 7 against nexq as it
// is (see README.md here), and prints a Markdown table, or JSON with --json.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import Redis from 'ioredis';
import { Nexq } from '../src/nexq';
import { BenchContext, FULL, NAMESPACE, QUICK } from './context';
import { Options, parseOptions, USAGE, UsageError, wants } from './options';
import { runRedisBenchmark } from './redis-benchmark';
import { BenchRedis } from './redis-server';
import { measureSerialRoundTrips } from './serial-round-trips';
import { BenchResults, profileReport, table } from './report';
import { comparisonTable } from './comparison';
import { preparePeers } from './peer-setup';
import { runPeer } from './workloads/peers';
import { runProfile } from './workloads/profile';
import { runW1 } from './workloads/w1-enqueue';
import { runW2 } from './workloads/w2-processing';
import { runW3, THIRD_OF_THREE } from './workloads/w3-latency';
import { runW4 } from './workloads/w4-backlog';
import { runW5 } from './workloads/w5-several-queues';
import { runW6 } from './workloads/w6-cpu-bound';
import { w6Report } from './w6-report';
import { runW7 } from './workloads/w7-many-queues';
import { runW8 } from './workloads/w8-fairness';
import { runW9, w9Report } from './workloads/w9-perform-many';

/** This machine's CPUs are shared with other work: figures move by ±10–20% between runs. */
const MACHINE_NOTE = 'shared';

async function runAll(ctx: BenchContext, options: Options): Promise<BenchResults> {
  const results: BenchResults = {};
  // A workload that fails is a finding: it is recorded and the others still run.
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (err) {
      ctx.problems.push(`${name} did not finish: ${(err as Error).message}`);
      return undefined;
    }
  };
  if (options.profile) {
    results.profile = await step('profile', () => runProfile(ctx));
    return results;
  }
  if (wants(options, 'ceiling')) {
    ctx.log('ceiling: redis-benchmark -P 1 and -P 50');
    results.ceiling = await step('ceiling', async () => [
      await runRedisBenchmark(ctx.server.port, 1),
      await runRedisBenchmark(ctx.server.port, 50),
    ]);
    ctx.log('ceiling: serial round trips (awaited PING, EVALSHA) from the bench process');
    results.serial = await step('serial round trips', () =>
      measureSerialRoundTrips(ctx.server.url, ctx.sizes.enqueue, ctx.sizes.enqueueWarmup),
    );
    await ctx.admin.flushall();
  }
  if (wants(options, 'W1')) results.w1 = await step('W1', () => runW1(ctx));
  if (wants(options, 'W2')) {
    // c30: the reference for W5's three busy queues of 10.
    const runs = [
      await step('W2 c10', () => runW2(ctx, 10, [], options.rateLimit, options.fair)),
      await step('W2 c30', () => runW2(ctx, 30, [], options.rateLimit, options.fair)),
      await step('W2 c50', () => runW2(ctx, 50, [], options.rateLimit, options.fair)),
    ];
    results.w2 = runs.filter((r) => r !== undefined);
  }
  if (wants(options, 'W3')) {
    results.w3 = await step('W3', () => runW3(ctx));
    results.w3Third = await step('W3 on the third queue', () => runW3(ctx, THIRD_OF_THREE));
  }
  if (wants(options, 'W5')) results.w5 = await step('W5', () => runW5(ctx));
  if (wants(options, 'W7')) results.w7 = await step('W7', () => runW7(ctx, true));
  if (wants(options, 'W8')) results.w8 = await step('W8', () => runW8(ctx));
  if (wants(options, 'W4')) results.w4 = await step('W4', () => runW4(ctx));
  if (wants(options, 'W9')) results.w9 = await step('W9', () => runW9(ctx));
  const peers = options.peers
    ? ((await step('peers setup', () => Promise.resolve(preparePeers(ctx.log, options.peers)))) ?? [])
    : [];
  if (wants(options, 'W6'))
    results.w6 = await step('W6', () => runW6(ctx, options.w6Jobs ?? ctx.sizes.cpuBound, peers));
  const workloads = { w1: wants(options, 'W1'), w2: wants(options, 'W2'), w3: wants(options, 'W3') };
  if (options.peers && (workloads.w1 || workloads.w2 || workloads.w3)) {
    results.peers = [];
    for (const peer of peers) results.peers.push(await runPeer(ctx, peer, workloads));
  }
  return results;
}

function redisVersion(): string {
  try {
    return /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) process.stderr.write(`${err.message}\n`);
    process.stderr.write(`${USAGE}\n`);
    return err.message ? 2 : 0;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const server = await BenchRedis.start();
  const stopOnSignal = () => {
    const exit = () => process.exit(130);
    server.stop().then(exit, exit);
  };
  process.once('SIGINT', stopOnSignal).once('SIGTERM', stopOnSignal);
  const admin = new Redis(server.url);
  const started = new Date();
  const loadAtStart = os.loadavg()[0];
  const sizes = options.quick ? QUICK : FULL;
  const problems: string[] = [];
  let enqueuer: Nexq | undefined;
  let results: BenchResults;
  try {
    enqueuer = await Nexq.start({ redis: server.url, namespace: NAMESPACE, mode: 'enqueuer', logLevel: 'warn' });
    log(`redis-server ${redisVersion()} on port ${server.port}; ${options.quick ? 'quick' : 'full'} sizes`);
    results = await runAll({ server, admin, enqueuer, sizes, log, problems }, options);
  } finally {
    await enqueuer?.stop().catch(() => {});
    await admin.quit().catch(() => admin.disconnect());
    await server.stop();
  }
  const seconds = (Date.now() - started.getTime()) / 1000;
  const meta = {
    date: started.toISOString(),
    seconds,
    machine: `${os.availableParallelism()} cores, ${MACHINE_NOTE} (${os.cpus()[0]?.model ?? 'unknown CPU'})`,
    node: process.version,
    redis: redisVersion(),
    sizes,
    quick: options.quick,
    // Other work on a shared machine moves every figure; the 1-minute load average says how much there was.
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg()[0] },
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...meta, results, problems }, null, 2)}\n`);
  } else {
    const out = [
      `nexq bench, ${meta.date}, ${meta.machine}, Node ${meta.node}, Redis ${meta.redis}, ${seconds.toFixed(0)} s, load average ${loadAtStart.toFixed(2)} → ${meta.loadAverage.atEnd.toFixed(2)}`,
    ];
    const mainTable = table(results);
    // Only the header when every workload asked for has its own table (W6).
    if (mainTable.split('\n').length > 2) out.push('', mainTable);
    if (results.profile) out.push('', profileReport(results.profile));
    if (results.w6) out.push('', w6Report(results.w6));
    if (results.w9) out.push('', w9Report(results.w9));
    if (results.peers?.length)
      out.push('', 'nexq beside the peers (same Redis, same run):', '', comparisonTable(results, results.peers));
    out.push(
      '',
      problems.length
        ? `Problems seen (${problems.length}):\n${problems.map((p) => `- ${p}`).join('\n')}`
        : 'Problems seen: none',
    );
    process.stdout.write(`${out.join('\n')}\n`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
