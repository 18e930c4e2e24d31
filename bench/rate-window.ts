// Issue 34, item 6: a queue's `rateLimit` against a strict sliding-window counter. Starts its own
// redis-server and N in-process nodes on one rate-limited queue, enqueues the jobs at once, and
// reports how long they took and how many windows of `per` held more than `limit` starts, counted
// twice by Redis' clock: as the fetches counted them (the rate key's members, read every 100 ms),
// and as the handlers began (test/fixtures/jobs/StartTime.js: what a remote API would see).
// `--api-per` is the window the remote API counts in seconds (default `per`: a margin is `per` above it).
//   node dist/bench/rate-window.js [--jobs 300] [--limit 20] [--per 1] [--nodes 3] [--burst true|N] [--api-per 1]
import Redis from 'ioredis';
import winston from 'winston';
import { Nexq } from '../src/nexq';
import { Keys } from '../src/redis/keys';
import { fixturesJobs } from '../test/support/paths';
import { BenchRedis } from './redis-server';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

/** Windows of `perMs` holding more than `limit` of the sorted `starts` (one per start that opens one). */
export function windowsOver(starts: number[], limit: number, perMs: number): number {
  return starts.filter((start, i) => i + limit < starts.length && starts[i + limit] - start < perMs).length;
}

async function main(): Promise<void> {
  const jobs = Number(option('jobs', '300'));
  const limit = Number(option('limit', '20'));
  const per = Number(option('per', '1'));
  const apiPerMs = Number(option('api-per', String(per))) * 1000;
  const nodeCount = Number(option('nodes', '3'));
  const burstArg = option('burst', '');
  const burst = burstArg === 'true' ? true : burstArg ? Number(burstArg) : undefined;
  const server = await BenchRedis.start();
  const redis = new Redis(server.url);
  const namespace = 'rate';
  const keys = new Keys(namespace);
  const rateLimit = { limit, per, ...(burst === undefined ? {} : { burst }) };
  const nodes: Nexq[] = [];
  try {
    for (let i = 0; i < nodeCount; i++)
      nodes.push(
        await Nexq.start({
          redis: server.url,
          namespace,
          queues: [{ name: 'default', rateLimit }],
          concurrency: 10,
          jobsDir: fixturesJobs,
          environment: false,
          logger: winston.createLogger({ silent: true }),
        }),
      );
    // Warm up: every node's threads loaded and the handler's Redis client connected (a cold node
    // starts its first jobs up to seconds after it fetched them), then the window left to empty.
    const warm = 'rate:out:warm';
    await nodes[0].enqueueAll(
      Array.from({ length: nodeCount * 10 }, () => ({
        queue: 'default',
        class: 'StartTime',
        args: [server.url, warm],
      })),
    );
    while ((await redis.llen(warm)) < nodeCount * 10) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, per * 1000 + 100));
    const out = 'rate:out:starts';
    const from = Date.now();
    await nodes[0].enqueueAll(
      Array.from({ length: jobs }, () => ({ queue: 'default', class: 'StartTime', args: [server.url, out] })),
    );
    const counted = new Set<string>();
    while ((await redis.llen(out)) < jobs) {
      for (const member of await redis.zrangebyscore(keys.rate('default'), '0', '+inf')) counted.add(member);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (Date.now() - from) / 1000;
    for (const member of await redis.zrangebyscore(keys.rate('default'), '0', '+inf')) counted.add(member);
    const fetched = [...counted]
      .filter((member) => Number(member.split(':')[0]) >= from - 1000)
      .map((member) => Number(member.split(':')[0]))
      .sort((a, b) => a - b);
    const began = (await redis.lrange(out, 0, -1)).map((us) => Number(us) / 1000).sort((a, b) => a - b);
    const perMs = per * 1000;
    console.log(
      JSON.stringify({
        jobs,
        rateLimit,
        nodes: nodeCount,
        seconds: Math.round(seconds * 10) / 10,
        fetchStartsSeen: burst === undefined ? fetched.length : 'n/a (GCRA keeps no log)',
        windowsOverByFetch: burst === undefined ? windowsOver(fetched, limit, perMs) : 'n/a',
        apiPer: apiPerMs / 1000,
        windowsOverByHandler: windowsOver(began, limit, apiPerMs),
        mostInAWindowByHandler: Math.max(...began.map((s) => began.filter((t) => t >= s && t < s + apiPerMs).length)),
      }),
    );
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.quit();
    await server.stop();
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
