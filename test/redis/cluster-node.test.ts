// nexq on a Redis Cluster (issue #9, step 1): the namespace carries a hash tag, so every key is in
// one slot and the scripts run unchanged; a node refuses an untagged namespace; enqueue, run,
// cancel, the idle node's blocking wait, the SCAN for backup lists and the replica check of
// waitReplicas all work through the cluster client. The fixtures record into the shared single Redis.
import { expect } from 'chai';
import type { Cluster } from 'ioredis';
import { ConfigError } from '../../config/config-error';
import { Nexq } from '../../src/nexq';
import { backupQueuesOf } from '../../src/redis/backups';
import { BlockingFetch } from '../../src/redis/blocking-fetch';
import { keySlot, serverOf } from '../../src/redis/client';
import { connectCluster, missingReplicas } from '../../src/redis/connection';
import { Keys } from '../../src/redis/keys';
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
    client?.disconnect();
    await setup?.stop();
  });

  const tagged = () => `{${t.ns}}`;
  const start = (options: Parameters<typeof t.start>[0] = {}) => t.start({ redis: setup.redisOption(), namespace: tagged(), ...options });

  it('refuses to start with a namespace that has no hash tag, naming namespace', async () => {
    for (const namespace of ['exq', '']) {
      const refused = await Nexq.start({ redis: setup.redisOption(), namespace }).then(() => 'started', (err) => err);
      expect(refused).to.be.instanceOf(ConfigError);
      expect((refused as ConfigError).key).to.equal('namespace');
      expect((refused as Error).message).to.match(/hash tag.*Sidekiq's '' namespace .*cannot be used in cluster mode/);
    }
  });

  it('computes the slot of a key as the cluster does', async () => {
    const port = setup.servers[0].port;
    for (const key of ['{t1}:queue:a', 'app{jobs}:retry', '{}x', 'a{b', 'exq:queue:default', 'ü{ß}', `${tagged()}:nexq:jobs`]) {
      expect(keySlot(key), key).to.equal(await askRedis(port, (c) => c.call('CLUSTER', 'KEYSLOT', key)));
    }
  });

  it('runs jobs of several queues, every key in the slot of the tag', async () => {
    const queues = ['a', 'b', 'c'];
    const node = await start({ queues });
    const jids = await node.enqueueAll(Array.from({ length: 90 }, (_, i) => ({ queue: queues[i % 3], class: 'Tally', args: [t.url, t.out('done')] })));
    await waitFor(async () => (await t.redis.llen(t.out('done'))) === jids.length, 20_000, 'every job to run');
    expect(new Set(await t.redis.lrange(t.out('done'), 0, -1))).to.deep.equal(new Set(jids));
    const keys = new Keys(tagged());
    const server = serverOf(client, keys.queues);
    const [, found] = await server.scan('0', 'MATCH', `${keys.key('*')}`, 'COUNT', 10_000);
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
    expect(await missingReplicas(client, setup.redisOption({ waitReplicas: 2 }), key)).to.match(/waitReplicas is 2 but the master has 1 replica/);
  });

  it("an idle node's blocking wait, on a duplicate of the cluster client, wakes on a push", async () => {
    const key = new Keys(tagged()).queue('idle');
    const wait = new BlockingFetch(client);
    try {
      const woken = wait.wait(key, 10);
      await sleep(200); // let the BLMOVE block
      await client.lpush(key, 'job');
      expect(await woken).to.equal('job');
    } finally {
      wait.close();
    }
  });
});
