// With two replicas, a confirmed write is on both: Sentinel's forced failover detaches the replica
// it promotes (REPLICAOF NO ONE) while the old master goes on taking writes that the other replica
// still acknowledges and later drops (issue #25). Here the detaching is done by hand, as Sentinel
// does it; the start-up check names the settings that break the promise.
import { expect } from 'chai';
import Redis from 'ioredis';
import { connect } from '../../src/redis/connection';
import { UnconfirmedWriteError } from '../../src/redis/wait-replicas';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';
import { askRedis, QUICK_SYNC, RedisServer } from '../support/redis-server';

const WAIT_MS = 300;

describe('redis.waitReplicas with two replicas', function () {
  this.timeout(30_000);
  let master: RedisServer;
  let replicas: RedisServer[];
  let onMaster: Redis;

  const online = async () => /connected_slaves:(\d+)/.exec(await onMaster.info('replication'))?.[1];
  const attach = async (replica: RedisServer) => {
    await askRedis(replica.port, (c) => c.call('REPLICAOF', '127.0.0.1', String(master.port)));
    await waitFor(
      async () => /slave\d+:.*port=\d+,state=online[\s\S]*state=online/.test(await onMaster.info('replication')),
      10_000,
      'both replicas online',
    );
  };

  before(async () => {
    master = await RedisServer.start({ args: QUICK_SYNC });
    replicas = [];
    for (let i = 0; i < 2; i++)
      replicas.push(
        await RedisServer.start({ args: [...QUICK_SYNC, '--replicaof', '127.0.0.1', String(master.port)] }),
      );
    onMaster = new Redis(master.url);
    await waitFor(async () => (await online()) === '2', 10_000, 'two replicas');
    await attach(replicas[1]);
    // Online on the master's side can come before a replica has loaded the sync and acks.
    await waitFor(
      async () => {
        await onMaster.set('m:warm', '1');
        return Number(await onMaster.call('WAIT', '2', '100')) === 2;
      },
      10_000,
      'both replicas acknowledging',
    );
  });

  after(async () => {
    onMaster.disconnect();
    await Promise.all([master.stop(), ...replicas.map((r) => r.stop())]);
  });

  it('a master that lost one of them confirms no write, even on a new connection, until it is back', async () => {
    const client = connect({ url: master.url, waitReplicas: 1, waitTimeout: WAIT_MS });
    const fresh = connect({ url: master.url, waitReplicas: 1, waitTimeout: WAIT_MS });
    try {
      await client.set('m:before', '1'); // the master is seen with both replicas online
      await askRedis(replicas[1].port, (c) => c.call('REPLICAOF', 'NO', 'ONE')); // what SENTINEL FAILOVER does first
      await waitFor(async () => (await online()) === '1', 5000, 'the master to see one replica');
      for (const c of [client, fresh]) {
        const refused = await c.set('m:during', '1').then(
          () => 'resolved',
          (err: unknown) => err,
        );
        expect(refused).to.be.instanceOf(UnconfirmedWriteError);
        expect((refused as Error).message).to.match(
          /confirmed by 1 of 2 replica\(s\).*every replica this master has had online, 2/,
        );
      }
      await attach(replicas[1]);
      // Online on the master's side can come before the replica has loaded the sync and acks.
      const confirms = (c: typeof client, value: string) => () =>
        c.set('m:after', value).then(
          () => true,
          () => false,
        );
      await waitFor(confirms(client, '1'), 10_000, 'writes confirmed again');
      await waitFor(confirms(fresh, '2'), 10_000, 'writes confirmed again on the other connection');
      expect(await askRedis(replicas[1].port, (c) => c.get('m:after'))).to.equal('2');
    } finally {
      client.disconnect();
      fresh.disconnect();
    }
  });

  it('a write on a server that is a replica now (a demoted master) is not confirmed', async () => {
    const onReplica = connect({ url: replicas[0].url, waitReplicas: 1, waitTimeout: WAIT_MS });
    try {
      // A replica refuses writes (READONLY) but runs read-only scripts: EVAL counts as a write here.
      const refused = await onReplica.eval('return 1', 0).then(
        () => 'resolved',
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(UnconfirmedWriteError);
      expect((refused as Error).message).to.match(/WAIT cannot be used with replica instances/);
    } finally {
      onReplica.disconnect();
    }
  });

  describe('the start-up check', () => {
    const t = useNodes();

    it('warns, naming each setting, when the deployment cannot keep the promise', async () => {
      await onMaster.config('SET', 'min-replicas-to-write', '3');
      await onMaster.config('SET', 'appendonly', 'no');
      try {
        const logs = captureLogs();
        await t.start({ redis: { url: master.url, waitReplicas: 1 }, mode: 'enqueuer', logger: logs.logger });
        expect(logs.text(), logs.text()).to.include('appendonly is no on the master');
        expect(logs.text()).to.include('min-replicas-to-write is 3 on the master but 2 replica(s) are attached');
        const unset = captureLogs();
        await t.start({ redis: master.url, mode: 'enqueuer', logger: unset.logger });
        expect(unset.text()).to.include('the master has 2 replica(s) but redis.waitReplicas is not set');
      } finally {
        await onMaster.config('SET', 'min-replicas-to-write', '0');
        await onMaster.config('SET', 'appendonly', 'yes');
      }
    });

    it('says nothing when it can (appendonly yes, as the harness runs every server)', async () => {
      const logs = captureLogs();
      await t.start({ redis: { url: master.url, waitReplicas: 1 }, mode: 'enqueuer', logger: logs.logger });
      expect(logs.text()).to.not.include('"level":"warn"');
    });
  });
});
