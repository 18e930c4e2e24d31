// Chaos, a slow Redis at length (issue 24): three node processes, each through its own delaying
// proxy (20 ms each way), work through 3,000 jobs while their proxies stall at random — 0.5 to 4 s,
// and once 8 s, near the 10 s command timeout. No job may be lost, run twice or fail, and no node
// may log a warning (a command timeout is one). Prints the duplicates, the stalls and jobs/s.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { Nexq } from '../../src/nexq';
import { DelayProxy } from '../support/delay-proxy';
import { freshNamespace } from '../support/global-hooks';
import { sleep } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { expectAlive, NodeProcess, startNodeProcess, stopGracefully, kill9 } from './cluster';
import { everyConfirmedJobRan } from './confirmed-runs';

const JOBS = 3000;
const NODES = 3;

describe('chaos: a slow Redis', function () {
  this.timeout(240_000);
  let server: RedisServer;
  let redis: Redis;
  let proxies: DelayProxy[] = [];
  let nodes: NodeProcess[] = [];

  beforeEach(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
  });

  afterEach(async () => {
    await Promise.all(nodes.map((n) => kill9(n)));
    nodes = [];
    await Promise.all(proxies.map((p) => p.stop()));
    proxies = [];
    redis.disconnect();
    await server.stop();
  });

  it('3 nodes behind 20 ms proxies that stall up to 8 s: none lost, none twice, none failed', async () => {
    const ns = freshNamespace('slow');
    const keys = new Keys(ns);
    const done = `${ns}:chaos:done`;
    const producer = await Nexq.start({ redis: server.url, namespace: ns, mode: 'enqueuer', logLevel: 'error' });
    const jobs = Array.from({ length: JOBS }, () => ({
      queue: 'default',
      class: 'Tally',
      args: [server.url, done, 5],
    }));
    const jids = new Set(await producer.enqueueAll(jobs));
    await producer.stop();

    const started = Date.now();
    for (let i = 0; i < NODES; i++) {
      const proxy = await DelayProxy.start(server.port, 20);
      proxies.push(proxy);
      nodes.push(
        await startNodeProcess({
          redis: proxy.url,
          namespace: ns,
          queues: [{ name: 'default', concurrency: 10 }],
          jobsDir: fixturesJobs,
          logLevel: 'warn',
          threads: 1,
        }),
      );
    }
    // Stalls at random on each proxy while jobs remain, one at a time (a stall never extends
    // another); one 8 s stall on the first.
    let stalls = 0;
    const finished = new AbortController();
    const stall = async (proxy: DelayProxy, ms: number) => {
      proxy.stall(ms);
      stalls++;
      await sleep(ms);
    };
    const stalling = Promise.all(
      proxies.map(async (proxy, i) => {
        await sleep(1000);
        if (i === 0) await stall(proxy, 8000);
        for (;;) {
          await sleep(500 + Math.random() * 2500);
          if (finished.signal.aborted) break;
          await stall(proxy, 500 + Math.random() * 3500);
        }
      }),
    );
    const { duplicates } = await everyConfirmedJobRan(redis, done, jids, 180_000);
    const seconds = (Date.now() - started) / 1000;
    finished.abort();
    await stalling;
    // Acks may still wait out a stall: let them land before the stop (which would requeue them).
    expectAlive(nodes);
    for (const node of nodes) expect(await stopGracefully(node)).to.equal(0);
    const logged = nodes.map((n) => n.output()).join('');
    console.log(
      `      ${NODES} nodes, 20 ms each way, ${stalls} stalls (one of 8 s): jobs=${JOBS} duplicates=${duplicates} ` +
        `${Math.round(JOBS / seconds)} jobs/s`,
    );
    if (logged) console.log(logged);
    expect(duplicates).to.equal(0);
    expect(await redis.get(keys.stat('failed'))).to.equal(null);
    expect(await redis.zcard(keys.retry('default'))).to.equal(0);
    expect(await redis.llen(keys.queue('default'))).to.equal(0);
    expect(logged).to.equal('');
  });
});
