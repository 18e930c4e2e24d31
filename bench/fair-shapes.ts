// Issue 34's fair-queue shapes, built directly in the bench's own redis-server, and what a fetch
// costs in each: Redis' time per fetch (INFO commandstats, evalsha usec per call: the script and
// every command it ran), the fetches until a group with room runs, and jobs/s through an in-process
// node at concurrency 10 (src/redis/lua/_fair.lua, docs/fair-queues.md).
//   one-group  W2's shape: 20,000 jobs of the default group; fetches of 10 (+10 ahead), fair and plain
//   emptied    100,000 groups that had one job each and were drained, then 10 groups of 2,000 jobs;
//              against the same 10 groups in a fresh namespace (what emptied groups leave behind)
//   full       10,000 groups each with a job waiting and groupConcurrency (10) jobs running on another
//              node, then one group with room: fetches of 1 until it runs; then a node on the shape
//   node ... [--shapes one-group,emptied,full] [--node-seconds 20]
import Redis from 'ioredis';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import winston from 'winston';
import { Nexq } from '../src/nexq';
import { Keys } from '../src/redis/keys';
import { defineScripts } from '../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../src/redis/fetch-script';
import type { Middleware } from '../src/run/middleware';
import { BenchRedis } from './redis-server';

const Q = 'q';
const NODE = 'bench-n1';
const GROUP_LIMIT = 10;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const raw = (jid: string, group?: string) =>
  JSON.stringify({ class: 'Noop', args: [], queue: Q, jid, retry: false, ...(group === undefined ? {} : { group }) });

async function pushAll(redis: Redis, key: string, jobs: string[]): Promise<void> {
  for (let at = 0; at < jobs.length; at += 1000) await redis.lpush(key, ...jobs.slice(at, at + 1000));
}

/** Redis' evalsha calls and µs since the last reset (CONFIG RESETSTAT). */
async function evalsha(redis: Redis): Promise<{ calls: number; usec: number }> {
  const m = /^cmdstat_evalsha:calls=(\d+),usec=(\d+)/m.exec(await redis.info('commandstats'));
  return { calls: Number(m?.[1] ?? 0), usec: Number(m?.[2] ?? 0) };
}

function fairQueue(keys: Keys, count: number, extra: Partial<FetchQueue> = {}): FetchQueue {
  return {
    name: Q,
    queueKey: keys.queue(Q),
    backupKey: keys.backup(NODE, Q),
    runningKey: keys.running(Q),
    rateKey: keys.rate(Q),
    count,
    fair: keys.fair(Q),
    ...extra,
  };
}

/** `fetches` fetches of `queue`, the backup list emptied after each (the jobs as acked): µs of Redis per fetch. */
async function timeFetches(redis: Redis, keys: Keys, queue: FetchQueue, fetches: number) {
  await redis.config('RESETSTAT');
  let jobs = 0;
  const client: number[] = [];
  for (let i = 0; i < fetches; i++) {
    const at = performance.now();
    const got = await fetchJobs(redis, keys, NODE, [queue]);
    client.push(performance.now() - at);
    jobs += got.jobs[0].length;
    await redis.del(queue.backupKey);
  }
  const { calls, usec } = await evalsha(redis);
  client.sort((a, b) => a - b);
  return {
    fetches,
    jobs,
    redisUsPerFetch: Math.round(usec / calls),
    redisUsPerJob: jobs ? Math.round((usec / jobs) * 10) / 10 : null,
    clientMsP50: Math.round(client[Math.floor(client.length / 2)] * 100) / 100,
  };
}

/** What a fair queue's keys hold: waiting jobs, counted groups, ring entries, group-running keys. */
async function fairState(redis: Redis, keys: Keys) {
  const f = keys.fair(Q);
  let running = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${f.running}:*`, 'COUNT', 10000);
    running += found.length;
    cursor = next;
  } while (cursor !== '0');
  return {
    grouped: await redis.zcard(f.jobs),
    groupsHash: await redis.hlen(f.groups),
    ring: await redis.llen(f.ring),
    groupRunningKeys: running,
    dbsize: await redis.dbsize(),
  };
}

/** An in-process node at c10 on the shape: jobs/s over its first `expect` jobs (or `seconds`), ms to the first. */
async function nodeRun(url: string, namespace: string, queue: object, expect: number, seconds: number) {
  let done = 0;
  let first = 0;
  let last = 0;
  const counter: Middleware = {
    name: 'shape-counter',
    afterSuccess: () => {
      done++;
      last = performance.now();
      if (done === 1) first = last;
    },
  };
  const nexq = await Nexq.start({
    redis: url,
    namespace,
    nodeId: NODE,
    queues: [{ name: Q, concurrency: 10, fair: true, ...queue }],
    jobsDir: path.join(__dirname, 'jobs'),
    environment: false,
    middleware: [counter],
    logger: winston.createLogger({ silent: true }),
  });
  const ready = performance.now();
  while (done < expect && performance.now() - ready < seconds * 1000) await new Promise((r) => setTimeout(r, 20));
  await nexq.stop();
  return {
    jobs: done,
    msToFirst: done ? Math.round(first - ready) : null,
    jobsPerSec: done ? Math.round((done / ((last - ready) / 1000)) * 100) / 100 : 0,
  };
}

async function oneGroup(redis: Redis) {
  const out: Record<string, unknown> = {};
  for (const fair of [false, true]) {
    const keys = new Keys(`one-${fair}`);
    await pushAll(
      redis,
      keys.queue(Q),
      Array.from({ length: 20_000 }, (_, i) => raw(`j${i}`)),
    );
    const queue = fairQueue(keys, 10, { ahead: 10, ...(fair ? {} : { fair: undefined }) });
    out[fair ? 'fair' : 'plain'] = await timeFetches(redis, keys, queue, 1000);
  }
  return out;
}

/** 100,000 groups of one job each, fed and taken a thousand a fetch, the jobs then dropped as acked. */
async function emptiedHistory(redis: Redis, keys: Keys): Promise<void> {
  await pushAll(
    redis,
    keys.queue(Q),
    Array.from({ length: 100_000 }, (_, i) => raw(`old${i}`, `old-${i}`)),
  );
  const queue = fairQueue(keys, 1000);
  for (;;) {
    const got = await fetchJobs(redis, keys, NODE, [queue]);
    await redis.del(queue.backupKey);
    if (got.states[0] === 'empty' || got.jobs[0].length === 0) break;
  }
  await redis.del(keys.jobIndex(Q));
}

const tenGroups = () => Array.from({ length: 20_000 }, (_, i) => raw(`new${i}`, `busy-${i % 10}`));

async function emptied(redis: Redis, url: string, nodeSeconds: number) {
  const out: Record<string, unknown> = {};
  for (const history of [true, false]) {
    const name = history ? 'after100kEmptied' : 'fresh';
    const keys = new Keys(`emptied-${history}`);
    const built = performance.now();
    if (history) await emptiedHistory(redis, keys);
    const buildSeconds = Math.round((performance.now() - built) / 100) / 10;
    const left = await fairState(redis, keys);
    await pushAll(redis, keys.queue(Q), tenGroups());
    const fetches = await timeFetches(redis, keys, fairQueue(keys, 10), 500);
    await redis.del(...Object.values(keys.fair(Q)), keys.queue(Q), keys.jobIndex(Q));
    if (history) await emptiedHistory(redis, keys);
    await pushAll(redis, keys.queue(Q), tenGroups());
    const node = await nodeRun(url, `emptied-${history}`, {}, 20_000, nodeSeconds);
    out[name] = { buildSeconds, stateAfterHistory: left, fetchesOf10: fetches, nodeC10: node };
  }
  return out;
}

/** 10,000 groups with a job each, all at GROUP_LIMIT on another node; then `free` with `freeJobs`. */
async function buildFull(redis: Redis, keys: Keys, freeJobs: number): Promise<void> {
  const groups = Array.from({ length: 10_000 }, (_, g) => `full-${g}`);
  await pushAll(
    redis,
    keys.queue(Q),
    groups.map((g) => raw(`f-${g}`, g)),
  );
  const pipe = redis.pipeline();
  for (const g of groups) pipe.hset(keys.groupRunning(Q, g), 'other-node', String(GROUP_LIMIT));
  await pipe.exec();
  await pushAll(
    redis,
    keys.queue(Q),
    Array.from({ length: freeJobs }, (_, i) => raw(`free${i}`, 'free')),
  );
}

async function full(redis: Redis, url: string, nodeSeconds: number) {
  const keys = new Keys('full');
  await buildFull(redis, keys, 1);
  const queue = fairQueue(keys, 1, { groupLimit: GROUP_LIMIT });
  await redis.config('RESETSTAT');
  let fetches = 0;
  const at = performance.now();
  for (;;) {
    fetches++;
    const got = await fetchJobs(redis, keys, NODE, [queue]);
    if (got.jobs[0].length > 0 || fetches > 1000) break;
  }
  const clientMs = Math.round(performance.now() - at);
  const { calls, usec } = await evalsha(redis);
  const allFull = await timeFetches(redis, keys, queue, 100);
  await redis.flushdb();
  const nodeKeys = new Keys('full-node');
  await buildFull(redis, nodeKeys, 2000);
  const node = await nodeRun(url, 'full-node', { groupConcurrency: GROUP_LIMIT }, 2000, nodeSeconds);
  // The same 2,000 jobs of the one group alone, same limit: what the free group runs at without the others.
  await redis.flushdb();
  await pushAll(
    redis,
    new Keys('alone').queue(Q),
    Array.from({ length: 2000 }, (_, i) => raw(`free${i}`, 'free')),
  );
  const alone = await nodeRun(url, 'alone', { groupConcurrency: GROUP_LIMIT }, 2000, nodeSeconds);
  return {
    fetchesUntilFreeRuns: fetches,
    msOfThoseFetches: clientMs,
    redisUsPerFetch: Math.round(usec / calls),
    allFullFetchesOf1: allFull,
    nodeC10OnFreeGroup: node,
    nodeC10FreeGroupAlone: alone,
  };
}

async function main(): Promise<void> {
  const shapes = option('shapes', 'one-group,emptied,full').split(',');
  const nodeSeconds = Number(option('node-seconds', '20'));
  const server = await BenchRedis.start();
  const redis = defineScripts(new Redis(server.url));
  const results: Record<string, unknown> = {};
  try {
    if (shapes.includes('one-group')) results.oneGroup = await oneGroup(redis);
    await redis.flushdb();
    if (shapes.includes('emptied')) results.emptied = await emptied(redis, server.url, nodeSeconds);
    await redis.flushdb();
    if (shapes.includes('full')) results.full = await full(redis, server.url, nodeSeconds);
    console.log(JSON.stringify(results, null, 2));
  } finally {
    await redis.quit();
    await server.stop();
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
