// `npm run soak [-- --jobs N]` (issue 24, "a long run"): N no-op jobs (default 1,000,000) through
// 2 node processes at concurrency 50 each, on a private redis-server. 1% fail once and succeed on
// their retry, 0.1% fail twice and die, 1% hold a unique lock, 1% are scheduled a second ahead.
// The producer keeps the queue at most BACKLOG deep, as a steady stream would.
//
// Retries do not wait out Sidekiq's backoff (15-75 s for a first retry): every second the soak
// does what Sidekiq's "Retry All" button does (src/admin/actions.ts retryAll), so a failed job
// runs again within about a second and the run ends when the last job does.
//
// Prints the memory curve (each node's RSS, Redis used_memory, every N/10 jobs) and checks:
// every job accounted for (each succeeded exactly once, or is in the dead set: processed + dead =
// enqueued), each node's RSS at the end within 10% of its level after the first N/10 jobs, and
// Redis' used_memory, once the dead set is cleared, within 10% of its level before the first job;
// the keys left are listed. Exits 1 when a check fails.
import Redis from 'ioredis';
import { retryAll, deleteAll } from '../../src/admin/actions';
import { jsonObject } from '../../src/job/json-object';
import { BulkJob, Nexq } from '../../src/nexq';
import { Keys } from '../../src/redis/keys';
import { BenchRedis } from '../redis-server';
import { countOf, kindOf, soakJob } from './job-mix';
import { describeKeys, memoryParts, readKeys, usedMemory } from './redis-memory';
import { SoakNode } from './soak-nodes';
import { parseSoakOptions } from './options';

const NAMESPACE = 'soak';
const QUEUE = 'default';
const CHUNK = 1000;
const RETRY_ALL_EVERY_MS = 1000;
const SAMPLE_EVERY_MS = 100;
/** No job finished for this long: the run is reported as a hang. */
const STALL_MS = 60_000;
const TOLERANCE = 0.1;
const PLANNED_FAILURE = /Soak failed: Error: soak: planned failure/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const out = (line: string) => process.stdout.write(`${line}\n`);
const began = Date.now();
/** Progress, on stderr. */
const note = (line: string) => process.stderr.write(`[soak ${((Date.now() - began) / 1000).toFixed(1)} s] ${line}\n`);

interface Checkpoint {
  jobs: number;
  seconds: number;
  /** Each node's highest RSS sampled since the previous checkpoint (one reading moves with GC). */
  rssMb: number[];
  heapMb: number[];
  redisBytes: number;
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseSoakOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const { jobs } = options;
  const server = await BenchRedis.start();
  const admin = new Redis(server.url);
  // Redis 7 keeps a latency histogram per command name, made at the name's first call (~28 KB
  // each, never freed): the soak's own readings (SCAN, TYPE, MEMORY...) would show as growth.
  await admin.config('SET', 'latency-tracking', 'no');
  const keys = new Keys(NAMESPACE);
  const problems: string[] = [];
  const nodes: SoakNode[] = [];
  let producer: Nexq | undefined;
  try {
    // Which jobs succeeded, and how often (a second success is a duplicate run).
    const succeeded = new Uint8Array(jobs);
    let uniqueSucceeded = 0;
    let duplicates = 0;
    let failedRuns = 0;
    let warmSucceeded = 0;
    const onProgress = (indexes: number[], failed: number[]) => {
      for (const i of indexes) {
        if (i < 0) {
          warmSucceeded++;
          continue;
        }
        if (succeeded[i] === 0) uniqueSucceeded++;
        else duplicates++;
        succeeded[i] = Math.min(255, succeeded[i] + 1);
      }
      failedRuns += failed.filter((i) => i >= 0).length;
    };
    for (let n = 1; n <= options.nodes; n++) {
      const config = { redisUrl: server.url, namespace: NAMESPACE, queue: QUEUE, concurrency: options.concurrency };
      nodes.push(await SoakNode.start(`node${n}`, config, onProgress));
    }
    note(`${nodes.length} nodes ready`);
    producer = await Nexq.start({ redis: server.url, namespace: NAMESPACE, mode: 'enqueuer', logLevel: 'warn' });
    const ctx = producer.node.ctx;
    const enqueuer = producer;
    /** Enqueues `count` jobs in chunks, keeping the queue at most `backlog` deep. */
    const feed = async (count: number, job: (k: number) => BulkJob, progress?: (done: number) => void) => {
      for (let done = 0; done < count;) {
        if ((await admin.llen(keys.queue(QUEUE))) > options.backlog) {
          await sleep(20);
          continue;
        }
        const size = Math.min(CHUNK, count - done);
        await enqueuer.enqueueAll(Array.from({ length: size }, (_, k) => job(done + k)));
        done += size;
        progress?.(done);
      }
    };
    const stopRetrying = new AbortController();
    const retrying = (async () => {
      while (!stopRetrying.signal.aborted) {
        await retryAll(ctx, 'retry');
        await sleep(RETRY_ALL_EVERY_MS);
      }
    })();

    // Warm-up: jobs of the same mix, not counted, so that every script is loaded and every
    // one-time allocation (Redis' and the nodes') is made before the start is read. Its dead jobs
    // are cleared.
    const { warmup } = options;
    await feed(warmup, (j) => soakJob(QUEUE, -(j + 1), kindOf(j)));
    const warmDeadline = Date.now() + STALL_MS + warmup;
    while (warmSucceeded + (await admin.zcard(keys.dead(QUEUE))) < warmup) {
      if (Date.now() > warmDeadline) throw new Error(`the warm-up's ${warmup} jobs did not finish in time`);
      await sleep(SAMPLE_EVERY_MS);
    }
    await deleteAll(ctx, 'dead');
    note(`warm-up done (${warmup} jobs)`);
    // Let the beats and stats flushes land: the start is the idle cluster.
    await sleep(2000);
    const startBytes = await usedMemory(admin);
    const startKeys = await readKeys(admin, `${NAMESPACE}:*`);
    const startParts = await memoryParts(admin);
    out(
      `soak: ${jobs.toLocaleString('en')} jobs, ${options.nodes} nodes at c${options.concurrency}, queue kept ` +
        `at most ${options.backlog.toLocaleString('en')} deep; after ${warmup.toLocaleString('en')} warm-up jobs ` +
        `Redis used_memory ${mb(startBytes)} MB`,
    );
    out(
      `| jobs | s | jobs/s | ${nodes.map((n) => `${n.name} max RSS MB | heap total MB`).join(' | ')} | Redis MB | keys |`,
    );
    out(`|---|---|---|${nodes.map(() => '---|---').join('|')}|---|---|`);

    const started = Date.now();
    let enqueued = 0;
    const enqueueing = feed(
      jobs,
      (i) => soakJob(QUEUE, i),
      (n) => (enqueued = n),
    );
    const checkpoints: Checkpoint[] = [];
    const step = Math.max(1, Math.round(jobs / 10));
    let finished = 0;
    let lastMove = Date.now();
    let windowRss = nodes.map(() => 0);
    while (finished < jobs) {
      await sleep(SAMPLE_EVERY_MS);
      windowRss = nodes.map((n, k) => Math.max(windowRss[k], n.rssMb()));
      const dead = await admin.zcard(keys.dead(QUEUE));
      if (uniqueSucceeded + dead !== finished) lastMove = Date.now();
      finished = uniqueSucceeded + dead;
      for (const node of nodes) if (node.exitReason) throw new Error(`${node.name} ${node.exitReason}`);
      if (Date.now() - lastMove > STALL_MS)
        throw new Error(`no job finished for ${STALL_MS / 1000} s (${finished} of ${jobs} finished)`);
      while (finished >= (checkpoints.length + 1) * step && checkpoints.length < 10) {
        const point: Checkpoint = {
          jobs: (checkpoints.length + 1) * step,
          seconds: (Date.now() - started) / 1000,
          rssMb: windowRss,
          heapMb: nodes.map((n) => (n.lastMemory?.heapTotal ?? NaN) / 1024 / 1024),
          redisBytes: await usedMemory(admin),
        };
        checkpoints.push(point);
        windowRss = nodes.map(() => 0);
        const previous = checkpoints.at(-2)?.seconds ?? 0;
        const rate =
          point.seconds > previous ? Math.round(step / (point.seconds - previous)).toLocaleString('en') : '-';
        const perNode = point.rssMb.map((rss, k) => `${rss.toFixed(1)} | ${point.heapMb[k].toFixed(1)}`).join(' | ');
        out(
          `| ${point.jobs.toLocaleString('en')} | ${point.seconds.toFixed(0)} | ${rate} | ` +
            `${perNode} | ${mb(point.redisBytes)} | ${await admin.dbsize()} |`,
        );
      }
    }
    const seconds = (Date.now() - started) / 1000;
    note(`all ${jobs} jobs finished`);
    stopRetrying.abort();
    await Promise.all([enqueueing, retrying]);
    // Stats flush every second, beats every 5 s: let both settle before reading Redis.
    await sleep(6000);

    // Every job accounted for: succeeded exactly once, or dead (and then never succeeded).
    const deadEntries = await admin.zrange(keys.dead(QUEUE), 0, -1);
    const deadIndexes = deadEntries.map((raw) => (jsonObject(raw)?.args as number[] | undefined)?.[0] ?? -1);
    const wrongDead = deadIndexes.filter((i) => kindOf(i) !== 'dead' || succeeded[i] !== 0);
    const dead = new Set(deadIndexes);
    const missing: number[] = [];
    for (let i = 0; i < jobs; i++) if (succeeded[i] === 0 && !dead.has(i)) missing.push(i);
    const processed = Number(await admin.get(keys.stat('processed')));
    const failedStat = Number(await admin.get(keys.stat('failed')));
    const expectedDead = countOf('dead', jobs);
    const expectedFailedRuns = countOf('fail-once', jobs) + 2 * expectedDead;
    out(`\nduration ${seconds.toFixed(0)} s, ${Math.round(jobs / seconds).toLocaleString('en')} jobs/s overall`);
    out(
      `enqueued ${enqueued}; succeeded ${uniqueSucceeded} (duplicate runs ${duplicates}); dead ${deadEntries.length} ` +
        `(expected ${expectedDead}); failed runs ${failedRuns} (expected ${expectedFailedRuns}); ` +
        `stat:processed ${processed}, stat:failed ${failedStat}`,
    );
    if (missing.length)
      problems.push(`${missing.length} jobs neither succeeded nor dead, e.g. ${missing.slice(0, 5).join(', ')}`);
    if (wrongDead.length)
      problems.push(`${wrongDead.length} dead jobs that should not be, e.g. ${wrongDead.slice(0, 5).join(', ')}`);
    if (uniqueSucceeded + deadEntries.length !== enqueued)
      problems.push(`succeeded ${uniqueSucceeded} + dead ${deadEntries.length} != enqueued ${enqueued}`);
    if (deadEntries.length !== expectedDead) problems.push(`dead ${deadEntries.length}, expected ${expectedDead}`);
    if (duplicates) problems.push(`${duplicates} jobs ran more than once (no node failed)`);

    // Each node's RSS in the last tenth of the jobs against the first tenth (highest sample in each).
    const first = checkpoints[0];
    const last = checkpoints[checkpoints.length - 1];
    nodes.forEach((node, k) => {
      const growth = last.rssMb[k] / first.rssMb[k] - 1;
      out(
        `${node.name} RSS: ${first.rssMb[k].toFixed(1)} MB at most over the first ${first.jobs.toLocaleString('en')} ` +
          `jobs, ${last.rssMb[k].toFixed(1)} MB over the last (${(growth * 100).toFixed(1)}%), ` +
          `${node.rssMb().toFixed(1)} MB idle after the run`,
      );
      if (growth > TOLERANCE)
        problems.push(`${node.name} RSS grew ${(growth * 100).toFixed(1)}% after the first tenth`);
    });

    // Redis: with the dead set as the run left it, then cleared as an operator would.
    const withDead = await usedMemory(admin);
    const deadBytes = Number(await admin.memory('USAGE', keys.dead(QUEUE)));
    await deleteAll(ctx, 'dead');
    await sleep(500);
    const endBytes = await usedMemory(admin);
    const endKeys = await readKeys(admin, `${NAMESPACE}:*`);
    const redisGrowth = endBytes / startBytes - 1;
    out(
      `Redis used_memory: ${mb(startBytes)} MB at start, ${mb(withDead)} MB at the end with the dead set ` +
        `(${deadEntries.length} jobs, ${mb(deadBytes)} MB), ${mb(endBytes)} MB once it is cleared ` +
        `(${(redisGrowth * 100).toFixed(1)}%)`,
    );
    out(`  at start: ${startParts}`);
    out(`  at the end: ${await memoryParts(admin)}`);
    if (redisGrowth > TOLERANCE)
      problems.push(`Redis used_memory grew ${(redisGrowth * 100).toFixed(1)}% over the run`);
    out(`keys at start (nodes running, before the first job):`);
    describeKeys(startKeys).forEach((line) => out(line));
    out(`keys at the end (nodes running, dead set cleared):`);
    describeKeys(endKeys, startKeys).forEach((line) => out(line));

    note('stopping the nodes');
    for (const node of nodes) await node.stop();
    await producer.stop();
    note('stopped');
    producer = undefined;
    const afterStop = await readKeys(admin, `${NAMESPACE}:*`);
    out(`keys once the nodes stopped (used_memory ${mb(await usedMemory(admin))} MB):`);
    describeKeys(afterStop).forEach((line) => out(line));
    // What stays by design: the known queues, the counters (one per queue in nexq:processed:<q>),
    // and the per-class and per-queue metrics of each minute, which expire on their own.
    for (const key of afterStop.keys()) {
      if (/:nexq:(queue-)?metrics:\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(key)) {
        if ((await admin.ttl(key)) <= 0) problems.push(`left after the nodes stopped without an expiry: ${key}`);
      } else if (!/:(queues|nexq:processed:[^:]+|stat:(processed|failed)(:\d{4}-\d\d-\d\d)?)$/.test(key))
        problems.push(`left after the nodes stopped: ${key}`);
    }

    for (const node of nodes) {
      // A failure's line is followed by its stack, one `    at ...` line each.
      const lines = node.log.filter((l) => !/^\s+at /.test(l));
      const planned = lines.filter((l) => PLANNED_FAILURE.test(l)).length;
      const other = lines.filter((l) => !PLANNED_FAILURE.test(l));
      out(`${node.name} logged ${planned} planned failures and ${other.length} other lines`);
      for (const line of other.slice(0, 20)) problems.push(`${node.name} logged: ${line}`);
    }
  } catch (err) {
    problems.push(`the soak did not finish: ${(err as Error).stack ?? String(err)}`);
  } finally {
    for (const node of nodes) node.kill();
    await producer?.stop().catch(() => {});
    admin.disconnect();
    await server.stop();
  }
  if (problems.length) {
    out(`\nPROBLEMS (${problems.length}):`);
    for (const p of problems) out(`- ${p}`);
    process.exitCode = 1;
  } else out('\nsoak: every check passed');
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
