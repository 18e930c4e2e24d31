// nexq on a Redis Cluster (issue #9). With a tagged namespace every key is in one slot and the
// scripts run unchanged; with an untagged one (the per-queue key layout) each queue has a slot of
// its own and the queues spread over the masters. Enqueue, run, retry, dead, show, cancel, the idle
// node's wake signal, the SCAN for backup lists, dead-node recovery and the replica check of
// waitReplicas all work through the cluster client. The fixtures record into the shared single Redis.
import { expect } from 'chai';
import type { Cluster } from 'ioredis';
import { ConfigError } from '../../config/config-error';
import { Nexq } from '../../src/nexq';
import { backupQueuesOf } from '../../src/redis/backups';
import { WakeSignals } from '../../src/fetch/wake-signals';
import { keySlot, serverOf } from '../../src/redis/client';
import { connectCluster } from '../../src/redis/connection';
import { missingReplicas } from '../../src/redis/replication-check';
import { Keys } from '../../src/redis/keys';
import { readStats } from '../../src/admin/stats';
import { askRedis } from '../support/redis-server';
import { sleep, useNodes, waitFor } from '../support/node';
import { RedisClusterSetup } from '../support/redis-cluster';

describe('a nexq node on a Redis Cluster', function () {
  this.timeout(60_000);
  const t = useNodes();
  let setup: RedisClusterSetup;
  let client: Cluster;

  before(async () => {
    setup = await RedisClusterSetup.start();
    client = connectCluster(setup.redisOption());
    client.on('error', () => {});
    await client.connect();
  });

  after(async () => {
    // Unset when before failed part way.
    (client as Cluster | undefined)?.disconnect();
    await (setup as RedisClusterSetup | undefined)?.stop();
  });

  const tagged = () => `{${t.ns}}`;
  const start = (options: Parameters<typeof t.start>[0] = {}) =>
    t.start({ redis: setup.redisOption(), namespace: tagged(), ...options });

  it("refuses to start with Sidekiq's '' namespace, naming namespace", async () => {
    const refused = await Nexq.start({ redis: setup.redisOption(), namespace: '' }).then(
      () => 'started',
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as ConfigError).key).to.equal('namespace');
    expect((refused as Error).message).to.match(/non-empty namespace without braces with the per-queue key layout/);
  });

  it('spreads the queues of an untagged namespace over the masters, and runs, retries, buries and shows their jobs', async () => {
    const queues = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];
    const node = await t.start({ redis: setup.redisOption(), namespace: t.ns, queues });
    expect(node.node.ctx.keys.layout).to.equal('per-queue');
    const keys = new Keys(t.ns, 'per-queue');
    const masters = new Set(await Promise.all(queues.map((q) => setup.masterOf(keys.queue(q)))));
    expect(masters.size, 'masters holding the six queues').to.be.at.least(2);
    const jids = await node.enqueueAll(
      Array.from({ length: 120 }, (_, i) => ({ queue: queues[i % 6], class: 'Tally', args: [t.url, t.out('done')] })),
    );
    await waitFor(async () => (await t.redis.llen(t.out('done'))) === jids.length, 20_000, 'every job to run');
    expect(new Set(await t.redis.lrange(t.out('done'), 0, -1))).to.deep.equal(new Set(jids));
    // Failures land in their own queue's sets, on that queue's master; show finds them there.
    const dead = await node.enqueue('q2', 'Fail', ['x'], { retry: 0 });
    const retried = await node.enqueue('q5', 'Fail', ['y'], { retry: 3 });
    await waitFor(
      async () => (await client.zcard(keys.dead('q2'))) === 1 && (await client.zcard(keys.retry('q5'))) === 1,
      10_000,
      'a dead and a retry entry',
    );
    expect((await node.show(dead))?.state).to.equal('dead');
    expect((await node.show(retried))?.state).to.equal('retry');
    expect((await readStats(node.node.ctx)).dead).to.equal(1);
  });

  it("recovers a dead node's backup lists on every master (per-queue key layout)", async () => {
    const keys = new Keys(t.ns, 'per-queue');
    await client.zadd(keys.nodes, String(Date.now() / 1000 - 600), 'ghost');
    const queues = ['r1', 'r2', 'r3', 'r4'];
    for (const q of queues)
      await client.rpush(
        keys.backup('ghost', q),
        JSON.stringify({ class: 'Tally', jid: `ghost-${q}`, queue: q, args: [t.url, t.out('back')] }),
      );
    expect((await backupQueuesOf(client, keys, 'ghost')).sort()).to.deep.equal(queues);
    await t.start({ redis: setup.redisOption(), namespace: t.ns, queues, nodeCheckInterval: 1 });
    await waitFor(async () => (await t.redis.llen(t.out('back'))) === queues.length, 20_000, "the ghost's jobs to run");
    expect(await backupQueuesOf(client, keys, 'ghost')).to.deep.equal([]);
  });

  it('computes the slot of a key as the cluster does', async () => {
    const port = setup.servers[0].port;
    for (const key of [
      '{t1}:queue:a',
      'app{jobs}:retry',
      '{}x',
      'a{b',
      'exq:queue:default',
      'ü{ß}',
      `${tagged()}:nexq:jobs`,
    ]) {
      expect(keySlot(key), key).to.equal(await askRedis(port, (c) => c.call('CLUSTER', 'KEYSLOT', key)));
    }
  });

  it('runs jobs of several queues, every key in the slot of the tag', async () => {
    const queues = ['a', 'b', 'c'];
    const node = await start({ queues });
    const jids = await node.enqueueAll(
      Array.from({ length: 90 }, (_, i) => ({ queue: queues[i % 3], class: 'Tally', args: [t.url, t.out('done')] })),
    );
    await waitFor(async () => (await t.redis.llen(t.out('done'))) === jids.length, 20_000, 'every job to run');
    expect(new Set(await t.redis.lrange(t.out('done'), 0, -1))).to.deep.equal(new Set(jids));
    const keys = new Keys(tagged());
    const server = serverOf(client, keys.queues);
    const [, found] = await server.scan('0', 'MATCH', keys.key('*'), 'COUNT', 10_000);
    expect(found).to.include.members([keys.queues, keys.nodes, keys.processes]);
    expect(new Set(found.map(keySlot))).to.deep.equal(new Set([keySlot(keys.queues)]));
  });

  it("finds a node's backup lists by SCAN on the tag's master, and cancels a running job", async () => {
    const node = await start({ queues: ['slow', 'spin'], shutdownTimeout: 500 });
    const nodeId = node.node.ctx.config.nodeId;
    await node.enqueue('slow', 'Sleep', [60_000]);
    const spin = await node.enqueue('spin', 'Spin', []);
    await waitFor(async () => (await node.show(spin))?.state === 'running', 10_000, 'the Spin job running');
    const keys = new Keys(tagged());
    expect((await backupQueuesOf(client, keys, nodeId)).sort()).to.deep.equal(['slow', 'spin']);
    // Cancel goes over pub/sub: the node's subscriber is a duplicate of its cluster client.
    expect(await node.cancel(spin)).to.equal(true);
    expect((await node.show(spin))!.job).to.include({ error_class: 'JobCancelledError' });
    expect(await backupQueuesOf(client, keys, nodeId)).to.deep.equal(['slow']);
  });

  it("checks waitReplicas against the replicas of the tag's master", async () => {
    const key = new Keys(tagged()).queues;
    expect(await missingReplicas(client, setup.redisOption({ waitReplicas: 1 }), key)).to.equal(undefined);
    expect(await missingReplicas(client, setup.redisOption({ waitReplicas: 2 }), key)).to.match(
      /waitReplicas is 2 but the master has 1 replica/,
    );
  });

  it("wakes idle nodes from a per-queue enqueue: the script's PUBLISH reaches a subscriber on a duplicate of the cluster client", async () => {
    const keys = new Keys(t.ns, 'per-queue');
    const heard: string[] = [];
    const wakes = new WakeSignals(() => client, keys.wakeChannel, {
      onWake: (queueKey) => heard.push(queueKey),
      onInvalidated: () => {},
      onListening: () => {},
      onNotListening: () => {},
      onEnded: () => {},
      onCannotSubscribe: () => {},
    });
    const producer = await Nexq.start({
      redis: setup.redisOption(),
      namespace: t.ns,
      mode: 'enqueuer',
      logLevel: 'warn',
    });
    try {
      wakes.open();
      await sleep(300); // let the SUBSCRIBE land
      await producer.enqueue('idle', 'C', []);
      await waitFor(() => Promise.resolve(heard.length > 0), 5000, 'a wake signal');
      expect(heard).to.deep.equal([keys.queue('idle')]);
    } finally {
      wakes.close();
      await producer.stop();
    }
  });
});
