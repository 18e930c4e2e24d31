// The Redis Cluster harness and nexq's cluster connection: 3 masters with a replica each; a
// stalled replica makes its master's writes unconfirmed (WAIT runs per node); keys written with
// waitReplicas survive kill -9 of their master once its replica is promoted.
import { expect } from 'chai';
import type { Cluster } from 'ioredis';
import { connectCluster } from '../../src/redis/connection';
import { UnconfirmedWriteError } from '../../src/redis/wait-replicas';
import { clusterNodes, RedisClusterSetup } from '../support/redis-cluster';

describe('Redis Cluster harness and connection', function () {
  this.timeout(60_000);
  let setup: RedisClusterSetup;
  let cluster: Cluster;

  before(async () => {
    setup = await RedisClusterSetup.start();
    cluster = connectCluster(setup.redisOption({ waitReplicas: 1, waitTimeout: 300 }));
    cluster.on('error', () => {});
    await cluster.connect();
  });

  after(async () => {
    // Unset when `before` failed part way.
    (cluster as Cluster | undefined)?.disconnect();
    await (setup as RedisClusterSetup | undefined)?.stop();
  });

  it('comes up as 3 masters serving all 16384 slots, each with one replica', async () => {
    const nodes = await clusterNodes(setup.servers[0].port);
    const masters = nodes.filter((n) => n.role === 'master');
    expect(masters).to.have.length(3);
    expect(masters.flatMap((m) => m.slots).reduce((sum, [a, b]) => sum + b - a + 1, 0)).to.equal(16384);
    for (const m of masters) expect(nodes.filter((n) => n.masterId === m.id)).to.have.length(1);
  });

  it("waits for each key's own master's replica", async () => {
    const stalledMaster = await setup.masterOf('k:stalled');
    const other = Array.from({ length: 50 }, (_, i) => `k:other-${i}`);
    const elsewhere: string[] = [];
    for (const key of other) if ((await setup.masterOf(key)) !== stalledMaster) elsewhere.push(key);
    const replica = setup.server(await setup.replicaOf(stalledMaster));
    replica.freeze(true);
    try {
      const refused = await cluster.set('k:stalled', '1').then(
        () => 'resolved',
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(UnconfirmedWriteError);
      await Promise.all(elsewhere.map((key) => cluster.set(key, '1'))); // other masters' replicas answer
    } finally {
      replica.freeze(false);
    }
    await cluster.set('k:stalled', '2');
  });

  it('keeps every write it confirmed through kill -9 of a master and the promotion of its replica', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => `survivor:${i}`);
    await Promise.all(keys.map((key) => cluster.set(key, key)));
    const victim = await setup.masterOf(keys[0]);
    const onVictim: string[] = [];
    for (const key of keys) if ((await setup.masterOf(key)) === victim) onVictim.push(key);
    const { promoted } = await setup.killMaster(victim);
    expect(await setup.masterOf(keys[0])).to.equal(promoted);
    expect(onVictim.length).to.be.greaterThan(0);
    // The cluster client finds the new master by itself; every value is there.
    const values = await Promise.all(keys.map((key) => cluster.get(key)));
    expect(values).to.deep.equal(keys);
  });
});
