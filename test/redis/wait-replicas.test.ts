// redis.waitReplicas: a write counts only once the replica holds it. A stalled replica (SIGSTOP)
// turns writes into UnconfirmedWriteError while reads go on; a node's enqueue reports it.
import { expect } from 'chai';
import Redis from 'ioredis';
import { connect } from '../../src/redis/connection';
import { confirmWrites, UnconfirmedWriteError } from '../../src/redis/wait-replicas';
import { ScriptedRedis } from '../../src/redis/scripts';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';
import { QUICK_SYNC, RedisServer } from '../support/redis-server';

const WAIT_MS = 300;

describe('redis.waitReplicas', function () {
  let master: RedisServer;
  let replica: RedisServer;
  let onReplica: Redis;
  let onMaster: Redis;
  let client: ScriptedRedis;

  before(async () => {
    master = await RedisServer.start({ args: QUICK_SYNC });
    replica = await RedisServer.start({ args: [...QUICK_SYNC, '--replicaof', '127.0.0.1', String(master.port)] });
    onReplica = new Redis(replica.url);
    onMaster = new Redis(master.url);
    await waitFor(
      async () => /master_link_status:up/.test(await onReplica.info('replication')),
      10_000,
      'the replica to sync',
    );
  });

  beforeEach(async () => {
    client = connect({ url: master.url, waitReplicas: 1, waitTimeout: WAIT_MS });
    client.on('error', () => {});
    await client.connect();
  });

  afterEach(() => {
    replica.freeze(false);
    client.disconnect();
  });

  after(async () => {
    onReplica.disconnect();
    onMaster.disconnect();
    await Promise.all([master.stop(), replica.stop()]);
  });

  it('holds back the reply of a write until the stalled replica acknowledges it', async () => {
    const patient = connect({ url: master.url, waitReplicas: 1, waitTimeout: 5000 });
    try {
      replica.freeze(true);
      let frozen = true;
      const seen: string[] = [];
      const writes = [
        patient.set('w:held', '1'),
        patient.eval("return redis.call('incr', KEYS[1])", 1, 'w:n'),
        patient.multi().set('w:m', '1').exec(),
      ];
      // A write that fails is reported by the Promise.all below.
      for (const [i, w] of writes.entries())
        w.then(
          () => seen.push(`${i}:${frozen ? 'while frozen' : 'after'}`),
          () => {},
        );
      await waitFor(async () => (await onMaster.get('w:held')) === '1', 5000, 'the master to run the write');
      replica.freeze((frozen = false));
      await Promise.all(writes);
      expect(seen.sort()).to.deep.equal(['0:after', '1:after', '2:after']);
      expect(await onReplica.get('w:held')).to.equal('1');
    } finally {
      patient.disconnect();
    }
  });

  it('resolves writes one by one and in a pipelined burst, each on the replica by then', async () => {
    for (let i = 1; i <= 50; i++) {
      await client.rpush('w:serial', String(i));
      expect(await onReplica.llen('w:serial')).to.equal(i);
    }
    // 200 writes in one tick: autopipelined, answered after a shared WAIT.
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.sadd('w:burst', String(i))));
    expect(await onReplica.scard('w:burst')).to.equal(200);
  });

  it('fails a write the stalled replica did not acknowledge; the connection goes on', async () => {
    await client.set('w:before', 'x');
    replica.freeze(true);
    const write = await client.set('w:during', 'y').then(
      () => 'resolved',
      (err: unknown) => err,
    );
    expect(write).to.be.instanceOf(UnconfirmedWriteError);
    expect((write as UnconfirmedWriteError).code).to.equal('WRITE_UNCONFIRMED');
    expect((write as Error).message).to.match(/confirmed by 0 of 1 replica/);
    const transaction = await client
      .multi()
      .incr('w:n')
      .exec()
      .then(
        () => 'resolved',
        (err: unknown) => err,
      );
    expect(transaction).to.be.instanceOf(UnconfirmedWriteError);
    // The WAIT timed out: the connection answers again, reads without waiting for replicas.
    expect(await client.get('w:before')).to.equal('x');
    replica.freeze(false);
    await client.set('w:after', 'z');
    expect(await onReplica.get('w:after')).to.equal('z');
  });

  it('fails a write whose connection dropped before its WAIT answered, though the next connection confirms', async () => {
    const patient = connect({ url: master.url, waitReplicas: 1, waitTimeout: 5000 });
    patient.on('error', () => {});
    try {
      const id = await patient.client('ID');
      replica.freeze(true);
      const first = patient.set('w:dropped', '1').then(
        () => 'resolved',
        (err: unknown) => err,
      );
      await waitFor(async () => (await onMaster.get('w:dropped')) === '1', 5000, 'the master to run the write');
      await onMaster.client('KILL', 'ID', String(id));
      replica.freeze(false);
      await patient.set('w:next', '1'); // a new connection, a new WAIT: confirmed
      const err = await first;
      expect(err).to.be.instanceOf(UnconfirmedWriteError);
      expect((err as Error).message).to.match(/the connection dropped/); // not a command timeout, 10 s later
    } finally {
      patient.disconnect();
    }
  });

  it('fails a write whose confirmation timed out, leaving no rejection unhandled (the global hooks would fail this)', async () => {
    // Nothing is read once the WAIT is sent: the INFO sent just before it and the WAIT both time
    // out, the INFO first, while the confirmation still awaits the WAIT.
    const silent = new Redis(master.url, { commandTimeout: 300, lazyConnect: true });
    silent.on('error', () => {});
    const sendCommand = silent.sendCommand.bind(silent);
    let failed = 0; // of INFO and WAIT, counted without handling their promises
    silent.sendCommand = (command, ...rest) => {
      if (command.name === 'info' || command.name === 'wait') {
        const reject = command.reject;
        command.reject = (err) => {
          failed++;
          reject(err);
        };
      }
      const sent = sendCommand(command, ...rest);
      if (command.name === 'wait') silent.stream.pause();
      return sent;
    };
    confirmWrites(silent, 1, 5000);
    try {
      await silent.connect();
      const err = await silent.set('w:silent', '1').then(
        () => 'resolved',
        (e: unknown) => e,
      );
      // (Its own command timeout may end the held write first: either way it fails.)
      expect((err as Error).message).to.match(/timed out/);
      await waitFor(() => failed === 2, 5000, 'INFO and WAIT to time out too');
      await new Promise((resolve) => setImmediate(resolve)); // Node reports unhandled rejections by now
    } finally {
      silent.disconnect();
    }
  });

  describe('on a node', () => {
    const t = useNodes();

    it('rejects an enqueue the replica did not confirm; confirmed jobs run', async () => {
      const nexq = await t.start({ redis: { url: master.url, waitReplicas: 1, waitTimeout: WAIT_MS } });
      const out = t.out('ran');
      await nexq.enqueue('default', 'Record', [t.url, out, 'confirmed']);
      expect((await t.waitForRecords(out, 1)).map((r) => r.value)).to.deep.equal(['confirmed']);
      replica.freeze(true);
      const refused = await nexq.enqueue('default', 'Record', [t.url, out, 'unconfirmed']).then(
        () => 'resolved',
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(UnconfirmedWriteError);
      replica.freeze(false);
    });

    it('starts no job an idle node took without the replica confirming the fetch; it runs once the replica is back', async () => {
      const nexq = await t.start({ redis: { url: master.url, waitReplicas: 1, waitTimeout: WAIT_MS } });
      const out = t.out('idle');
      // Idle, its queue found empty (a wake or the idle poll makes it fetch; the fetch is a confirmed one).
      await waitFor(
        async () => /cmd=subscribe/.test((await onMaster.client('LIST')) as string),
        5000,
        'the wake subscriber',
      );
      replica.freeze(true);
      try {
        const job = JSON.stringify({
          class: 'Record',
          args: [t.url, out, 'woke'],
          jid: 'woke',
          queue: 'default',
          retry: true,
        });
        await onMaster.lpush(t.keys.queue('default'), job);
        await new Promise((resolve) => setTimeout(resolve, WAIT_MS * 4));
        expect(await t.redis.llen(out)).to.equal(0);
      } finally {
        replica.freeze(false);
      }
      expect((await t.waitForRecords(out, 1, 15_000)).map((r) => r.value)).to.deep.equal(['woke']);
      await nexq.drain();
    });

    it('warns at start when the master has fewer replicas than waitReplicas', async () => {
      const logs = captureLogs();
      await t.start({
        redis: { url: t.url, waitReplicas: 1, waitTimeout: WAIT_MS },
        mode: 'enqueuer',
        logger: logs.logger,
      });
      expect(logs.text()).to.match(/redis\.waitReplicas is 1 but the master has 0 replica\(s\) attached/);
    });
  });
});
