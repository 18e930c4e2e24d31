// Chaos: three node processes work through one batch of 300 jobs while one is killed with -9. Its
// in-flight jobs run again on a survivor (some after they already counted), yet the batch counts
// each job once and its callbacks are enqueued exactly once each. In both key layouts.
import { expect } from 'chai';
import Redis from 'ioredis';
import { KeyLayout, Keys } from '../../src/redis/keys';
import { Nexq } from '../../src/nexq';
import { freshNamespace } from '../support/global-hooks';
import { sleep, waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { expectAlive, kill9, NodeProcess, startNodeProcess, stopGracefully } from './cluster';

const JOBS = 300;

describe('chaos: a batch over 3 nodes, one killed -9', function () {
  this.timeout(120_000);
  let server: RedisServer;
  let redis: Redis;
  let nodes: NodeProcess[] = [];

  beforeEach(async () => {
    server = await RedisServer.start({ args: ['--appendfsync', 'always'] });
    redis = new Redis(server.url);
  });

  afterEach(async () => {
    await Promise.all(nodes.map((n) => kill9(n)));
    nodes = [];
    redis.disconnect();
    await server.stop();
  });

  for (const layout of ['shared', 'per-queue'] as KeyLayout[]) {
    it(`fires onComplete and onSuccess exactly once (${layout} key layout)`, async () => {
      const ns = freshNamespace('chaos');
      const keys = new Keys(ns, layout);
      const done = `${ns}:chaos:done`;
      const cb = `${ns}:chaos:callbacks`;
      const common = { redis: server.url, namespace: ns, keyLayout: layout, logLevel: 'error' as const };
      const producer = await Nexq.start({ ...common, mode: 'enqueuer' });
      const callback = (event: string) => ({ queue: 'default', class: 'RecordArgs', args: [server.url, cb, event] });
      const batch = producer.batch({ onComplete: callback('complete'), onSuccess: callback('success') });
      const jids = new Set(
        await batch.enqueueAll(
          Array.from({ length: JOBS }, () => ({ queue: 'default', class: 'Tally', args: [server.url, done, 50] })),
        ),
      );
      for (let i = 0; i < 3; i++)
        nodes.push(
          await startNodeProcess({
            ...common,
            queues: [{ name: 'default', concurrency: 5 }],
            jobsDir: fixturesJobs,
            pollTimeout: 20,
            threads: 1,
            heartbeatInterval: 1,
            nodeTimeout: 3,
            nodeCheckInterval: 1,
          }),
        );
      await waitFor(async () => (await redis.llen(done)) >= JOBS / 5, 60_000, 'a fifth of the jobs to run');
      await kill9(nodes[0]);
      await waitFor(async () => new Set(await redis.lrange(done, 0, -1)).size === JOBS, 60_000, 'every job to run');
      await waitFor(async () => (await redis.llen(cb)) >= 2, 30_000, 'the callbacks to run');
      // Let the killed node's jobs be recovered and re-run, and any second callback show.
      await waitFor(async () => (await redis.zcard(keys.nodes)) === 2, 30_000, 'the killed node to be reaped');
      await sleep(1000);
      const runs = await redis.lrange(done, 0, -1);
      const events = (await redis.lrange(cb, 0, -1)).map((r) => JSON.parse(r).values[1]);
      console.log(`      batch of ${JOBS}, ${layout}: runs=${runs.length} (re-runs ${runs.length - JOBS})`);
      expect(new Set(runs)).to.deep.equal(jids);
      expect(events.map((e: { event: string }) => e.event).sort()).to.deep.equal(['complete', 'success']);
      expect(events.every((e: { bid: string }) => e.bid === batch.bid)).to.equal(true);
      expect(await batch.status()).to.include({ total: JOBS, pending: 0, failed: 0 });
      await producer.stop();
      expectAlive(nodes.slice(1));
      for (const node of nodes.slice(1)) expect(await stopGracefully(node)).to.equal(0);
    });
  }
});
