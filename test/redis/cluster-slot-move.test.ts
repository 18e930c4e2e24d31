// nexq's scripts in a Redis Cluster slot in migration (docs/cluster.md, "A slot in migration").
// Redis runs a script on the slot's source only while every key it names is there, and refuses,
// mid-script, any command on a key the script itself emptied: the script then stops half way.
// Each case sets up the keys, opens the slot's move, runs one script where Redis runs it (the
// source, on a connection of its own, or the target through the cluster client's ASK), completes
// the move and checks that the script ran whole. And a cluster call waits out an open slot.
import { expect } from 'chai';
import Redis, { Cluster } from 'ioredis';
import { settleMember } from '../../src/redis/batch-scripts';
import { connectCluster } from '../../src/redis/connection';
import { enqueueJobs } from '../../src/redis/enqueue-scripts';
import { Keys } from '../../src/redis/keys';
import { recoverNode } from '../../src/redis/move-scripts';
import { writeBeat } from '../../src/redis/redis-time';
import { defineScripts, runScript, ScriptedRedis } from '../../src/redis/scripts';
import { ackBatch, throttle } from '../../src/redis/settle-scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { sleep } from '../support/node';
import { RedisClusterSetup } from '../support/redis-cluster';
import { SlotMove } from '../support/slot-move';

describe('scripts in a Redis Cluster slot in migration', function () {
  this.timeout(60_000);
  let setup: RedisClusterSetup;
  let cluster: Cluster;
  const keys = new Keys('mv', 'per-queue');
  let queues = 0;
  /** A queue no other case used. */
  const freshQueue = () => `q${++queues}`;
  const job = (queue: string, name: string, extra: object = {}) =>
    JSON.stringify({ jid: `${queue}-${name}`, class: 'Tally', queue, args: [], ...extra });
  const jidOf = (raw: string) => (JSON.parse(raw) as { jid: string }).jid;

  before(async () => {
    setup = await RedisClusterSetup.start();
    cluster = connectCluster(setup.redisOption());
    cluster.on('error', () => {});
    await cluster.connect();
  });

  after(async () => {
    // Unset when before failed part way.
    (cluster as Cluster | undefined)?.disconnect();
    await (setup as RedisClusterSetup | undefined)?.stop();
  });

  /**
   * Opens the move of `key`'s slot, runs `body` on a connection of its own to the source (which
   * runs a script whose keys are all there, or answers ASK or TRYAGAIN), then completes the move.
   */
  async function onSource<T>(key: string, body: (source: ScriptedRedis) => Promise<T>): Promise<T> {
    const move = await SlotMove.open(setup, key);
    const source = defineScripts(new Redis({ port: move.source.port, host: '127.0.0.1', lazyConnect: true }));
    source.on('error', () => {});
    try {
      await source.connect();
      return await body(source);
    } finally {
      source.disconnect();
      await move.close();
    }
  }

  /** The index entries of `queue`'s jobs, jid -> entry. */
  const indexOf = (queue: string) => cluster.hgetall(keys.jobIndex(queue));

  it('ack-batch: cuts acks out of a backup list whose every entry it read, the newest among them, keeping the others', async () => {
    const q = freshQueue();
    const backup = keys.backup('n1', q);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => job(q, name));
    await cluster.lpush(backup, a, b, c, d); // newest (d) at the head
    await cluster.hset(keys.jobIndex(q), ...[a, b, c, d].flatMap((raw) => [jidOf(raw), `1\trunning\t${q}\tn1`]));
    await cluster.set(keys.processed(q), 0); // the queue's counter, there once any job was processed
    const acks = [d, b, a].map((raw) => ({ queue: q, backup, raw, jid: jidOf(raw) }));
    const results = await onSource(backup, (source) => ackBatch(source, keys, acks));
    expect(results).to.deep.equal([1, 1, 1]);
    expect(await cluster.lrange(backup, 0, -1)).to.deep.equal([c]);
    expect(Object.keys(await indexOf(q))).to.deep.equal([jidOf(c)]);
    expect(await cluster.get(keys.processed(q))).to.equal('3');
  });

  it('ack-batch: two acks of a list that holds one of them: 1 and 0, no error', async () => {
    const q = freshQueue();
    const backup = keys.backup('n1', q);
    const [a, gone] = [job(q, 'a'), job(q, 'gone')];
    await cluster.lpush(backup, a);
    await cluster.hset(keys.jobIndex(q), jidOf(a), `1\trunning\t${q}\tn1`);
    await cluster.set(keys.processed(q), 0);
    const acks = [a, gone].map((raw) => ({ queue: q, backup, raw, jid: jidOf(raw) }));
    expect(await onSource(backup, (source) => ackBatch(source, keys, acks))).to.deep.equal([1, 0]);
    expect(await cluster.exists(backup)).to.equal(0);
  });

  /** The keys a fetch of `q` by n1 names, each made to exist (as the source requires). */
  async function fetchable(q: string): Promise<FetchQueue> {
    const queue: FetchQueue = {
      name: q,
      queueKey: keys.queue(q),
      backupKey: keys.backup('n1', q),
      runningKey: keys.running(q),
      rateKey: keys.rate(q),
      count: 2,
    };
    await cluster.hset(keys.paused(q), 'another queue', 'in');
    await cluster.hset(keys.jobIndex(q), 'another job', `0\tqueued\t${q}`);
    await cluster.lpush(queue.backupKey, job(q, 'running already'));
    await cluster.hset(queue.runningKey, 'another node', '1');
    await cluster.zadd(queue.rateKey, '-1', 'pause'); // a pause long over
    return queue;
  }

  it('fetch: a class over its rate keeps its place when the window is the whole queue, and the job behind it moves', async () => {
    const q = freshQueue();
    const queue = await fetchable(q);
    const [held, free] = [job(q, 'held', { class: 'Full' }), job(q, 'free', { class: 'Free' })];
    await cluster.lpush(queue.queueKey, held, free); // held is the oldest
    const rateKey = keys.classRate('Full', q);
    await throttle(cluster, rateKey, 600_000); // no job of Full may start for 10 min
    const fetched = await onSource(queue.queueKey, (source) =>
      fetchJobs(source, keys, 'n1', [queue], [{ name: 'Full', rate: { limit: 1, per: 1 } }]),
    );
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[free]]);
    expect(await cluster.lrange(queue.queueKey, 0, -1)).to.deep.equal([held]);
    expect(await cluster.lindex(queue.backupKey, 0)).to.equal(free);
  });

  it('fetch: a limit across nodes lets fewer go than asked and the take empties the queue: empty, no error', async () => {
    const q = freshQueue();
    const queue = await fetchable(q);
    const only = job(q, 'only');
    await cluster.lpush(queue.queueKey, only);
    const fetched = await onSource(queue.queueKey, (source) =>
      fetchJobs(source, keys, 'n1', [{ ...queue, globalLimit: 2 }]),
    );
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[only]]);
    expect(fetched.states).to.deep.equal(['empty']);
    expect(await cluster.hget(queue.runningKey, 'n1')).to.equal('1');
  });

  it('fetch: a backup key of the wrong type moves nothing, even when the take would empty the queue', async () => {
    const q = freshQueue();
    const queue = await fetchable(q);
    await cluster.del(queue.backupKey);
    await cluster.set(queue.backupKey, 'not a list');
    const only = job(q, 'only');
    await cluster.lpush(queue.queueKey, only);
    const fetched = await onSource(queue.queueKey, (source) => fetchJobs(source, keys, 'n1', [queue]));
    expect(fetched.jobs).to.deep.equal([[]]);
    expect(fetched.errors.map(([i, message]) => [i, /WRONGTYPE/.test(message)])).to.deep.equal([[0, true]]);
    expect(await cluster.lrange(queue.queueKey, 0, -1)).to.deep.equal([only]);
  });

  /** A fair queue with one job in its inbox (group a) and one in its groups (group b), every key existing. */
  async function fairFetchable(q: string, groupLimit?: number) {
    const fair = keys.fair(q);
    const queue = { ...(await fetchable(q)), count: 5, fair, groupLimit };
    const [inbox, grouped] = [job(q, 'inbox', { group: 'a' }), job(q, 'grouped', { group: 'b' })];
    await cluster.lpush(queue.queueKey, inbox);
    await cluster.zadd(fair.jobs, 0, `b\0${'1'.padStart(15, '0')}\0${grouped}`);
    await cluster.hset(fair.groups, 'b', '1');
    await cluster.rpush(fair.ring, 'b');
    await cluster.set(fair.seq, '1');
    // Every key of the call exists on the source, so Redis runs it there (the prefixes stand in).
    await cluster.hset(fair.running, 'unused', '0');
    await cluster.set(fair.rate, '0');
    await cluster.sadd(fair.paused, 'another group');
    await cluster.set(fair.starts, '0');
    // A parked group whose jobs went (the fetch drops it).
    await cluster.rpush(fair.parked, 'a group without jobs');
    return { queue, fair, inbox, grouped };
  }

  it("fetch of a fair queue: feeds the inbox's last job into its groups and takes every group empty, whole", async () => {
    const { queue, fair, inbox, grouped } = await fairFetchable(freshQueue());
    const fetched = await onSource(queue.queueKey, (source) => fetchJobs(source, keys, 'n1', [queue]));
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[grouped, inbox]]);
    expect(fetched.states).to.deep.equal(['empty']);
    expect(await cluster.exists(queue.queueKey, fair.jobs, fair.groups, fair.ring, fair.parked)).to.equal(0);
    expect(await cluster.lrange(queue.backupKey, 0, 1)).to.deep.equal([inbox, grouped]);
    expect(await cluster.get(fair.seq)).to.equal('2');
  });

  it('fetch of a fair queue with groupConcurrency: a group hash the slot move hides counts as full; nothing lost', async () => {
    const q = freshQueue();
    const { queue, fair, inbox, grouped } = await fairFetchable(q, 2);
    const fetched = await onSource(queue.queueKey, (source) => fetchJobs(source, keys, 'n1', [queue]));
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[]]);
    expect(fetched.states).to.deep.equal(['limited']);
    // The feed ran whole: both jobs wait in the groups, which counted as full are parked, in turn.
    expect(await cluster.zcard(fair.jobs)).to.equal(2);
    expect(await cluster.lrange(fair.ring, 0, -1)).to.deep.equal([]);
    expect(await cluster.lrange(fair.parked, 0, -1)).to.deep.equal(['b', 'a']);
    // With the move done, the groups' hashes are there to read: both jobs go, each group's slot held.
    const after = await fetchJobs(cluster, keys, 'n1', [queue]);
    expect(after.jobs).to.deep.equal([[grouped, inbox]]);
    expect(await cluster.hget(keys.groupRunning(q, 'a'), 'n1')).to.equal('1');
  });

  /** A backup list of two jobs, its queue, index and running hash, all existing. */
  async function backupToRequeue(q: string): Promise<{ keys: string[]; jobs: string[] }> {
    const [a, b] = [job(q, 'a'), job(q, 'b')];
    const backupKeys = [keys.backup('n1', q), keys.queue(q), keys.jobIndex(q), keys.running(q)];
    await cluster.lpush(backupKeys[0], a, b);
    await cluster.lpush(backupKeys[1], job(q, 'waiting'));
    await cluster.hset(backupKeys[2], jidOf(a), `1\trunning\t${q}\tn1`, jidOf(b), `1\trunning\t${q}\tn1`);
    await cluster.hset(backupKeys[3], 'n1', '2', 'another node', '1');
    return { keys: backupKeys, jobs: [a, b] };
  }

  it('requeue-backup on the source: moves every job back and gives back the running slots', async () => {
    const q = freshQueue();
    const { keys: scriptKeys, jobs } = await backupToRequeue(q);
    const moved = await onSource(scriptKeys[0], (source) => runScript(source, 'requeue-backup', scriptKeys, [q, 'n1']));
    expect(moved).to.equal(2);
    // The oldest (a) next in line at the right end, as before it was fetched.
    expect((await cluster.lrange(keys.queue(q), 0, -1)).slice(-2)).to.deep.equal([jobs[1], jobs[0]]);
    expect(await cluster.hgetall(keys.running(q))).to.deep.equal({ 'another node': '1' });
    expect(await cluster.hget(keys.jobIndex(q), jidOf(jobs[0]))).to.equal(`1\tqueued\t${q}`);
  });

  it("requeue-backup on the target, its keys migrated: the cluster client's ASK runs it there, whole", async () => {
    const q = freshQueue();
    const { keys: scriptKeys } = await backupToRequeue(q);
    const move = await SlotMove.open(setup, scriptKeys[0]);
    try {
      await move.migrate();
      expect(await move.keysOnSource()).to.deep.equal([]);
      expect(await runScript(cluster, 'requeue-backup', scriptKeys, [q, 'n1'])).to.equal(2);
    } finally {
      await move.close();
    }
    expect(await cluster.llen(keys.queue(q))).to.equal(3);
    expect(await cluster.exists(keys.backup('n1', q))).to.equal(0);
  });

  it('recover-node (shared layout): claims the dead node and moves its backup list back whole', async () => {
    const shared = new Keys('{mv-shared}', 'shared');
    const [a, b] = [job('q', 'a'), job('q', 'b')];
    const dead = {
      nodes: shared.nodes,
      identities: shared.nodeIdentities,
      processes: shared.processes,
      queuesSet: shared.queues,
      processKey: shared.process('host:1'),
      processWorkersKey: shared.processWorkers('host:1'),
      nodeId: 'dead',
      identity: 'host:1',
      timeout: 30,
      backups: [
        {
          backup: shared.backup('dead', 'q'),
          queue: shared.queue('q'),
          running: shared.running('q'),
          jobIndex: shared.jobIndex('q'),
          name: 'q',
        },
      ],
      runningKeys: [],
    };
    await cluster.zadd(dead.nodes, 1, 'dead', 2, 'alive');
    await cluster.hset(dead.identities, 'dead', 'host:1', 'alive', 'host:2');
    await cluster.sadd(dead.processes, 'host:1', 'host:2');
    await cluster.sadd(dead.queuesSet, 'q');
    await cluster.hset(dead.processKey, 'busy', '2');
    await cluster.hset(dead.processWorkersKey, 'w', '{}');
    await cluster.lpush(dead.backups[0].backup, a, b);
    await cluster.lpush(dead.backups[0].queue, job('q', 'waiting'));
    await cluster.hset(dead.backups[0].running, 'dead', '2', 'alive', '1');
    await cluster.hset(dead.backups[0].jobIndex, jidOf(a), '1\trunning\tq\tdead');
    expect(await onSource(dead.nodes, (source) => recoverNode(source, dead))).to.equal(2);
    expect(await cluster.llen(dead.backups[0].queue)).to.equal(3);
    expect(await cluster.zrange(dead.nodes, 0, -1)).to.deep.equal(['alive']);
    expect(await cluster.hgetall(dead.backups[0].running)).to.deep.equal({ alive: '1' });
  });

  it('beat: replaces the running-jobs hashes without emptying them first, and takes the signal', async () => {
    const identity = 'host:7';
    const beat = {
      nodeId: 'n1',
      identity,
      ttlSeconds: 60,
      info: '{}',
      busy: 1,
      quiet: false,
      rssKb: 1,
      reserved: 0,
      concurrency: 1,
      work: { written: -1, removed: [], set: { 'job-new': '{"queue":"q"}' } },
    };
    for (const key of [keys.processWorkers(identity), keys.processWork(identity)])
      await cluster.hset(key, 'job-old', '{"queue":"q"}');
    await cluster.zadd(keys.nodes, 1, 'n1');
    await cluster.hset(keys.nodeIdentities, 'n1', identity);
    await cluster.sadd(keys.processes, identity);
    await cluster.hset(keys.process(identity), 'busy', '0');
    await cluster.lpush(keys.processSignals(identity), 'TSTP');
    const { signal } = await onSource(keys.nodes, (source) => writeBeat(source, keys, beat));
    expect(signal).to.equal('TSTP');
    for (const key of [keys.processWorkers(identity), keys.processWork(identity)])
      expect(await cluster.hgetall(key)).to.deep.equal(beat.work.set);
    expect(await cluster.ttl(keys.processWorkers(identity))).to.be.greaterThan(0);
  });

  it('beat: removes the last ended job after renewing the expiry, so the emptied hash is not named again', async () => {
    const identity = 'host:8';
    const hashes = [keys.processWorkers(identity), keys.processWork(identity)];
    for (const key of hashes) await cluster.hset(key, 'job-old', '{"queue":"q"}');
    await cluster.zadd(keys.nodes, 1, 'n2');
    await cluster.hset(keys.nodeIdentities, 'n2', identity);
    await cluster.sadd(keys.processes, identity);
    await cluster.hset(keys.process(identity), 'busy', '1');
    await cluster.lpush(keys.processSignals(identity), 'TTIN'); // every key there: the script runs on the source
    const beat = {
      nodeId: 'n2',
      identity,
      ttlSeconds: 60,
      info: '{}',
      busy: 0,
      quiet: false,
      rssKb: 1,
      reserved: 0,
      concurrency: 1,
      work: { written: 1, removed: ['job-old'], set: {} },
    };
    const result = await onSource(keys.nodes, (source) => writeBeat(source, keys, beat));
    expect(result).to.deep.equal({ signal: 'TTIN', workLost: false, absent: false });
    for (const key of hashes) expect(await cluster.exists(key)).to.equal(0);
    expect(await cluster.hget(keys.process(identity), 'busy')).to.equal('0');
  });

  it("batch-settle: the last pending member's success empties the pending set and fires success", async () => {
    const bid = 'b1';
    const [hash, pending, failed, dead] = (['', 'pending', 'failed', 'dead'] as const).map((part) =>
      keys.batch(bid, part || undefined)!,
    );
    await cluster.hset(hash, 'ttl', '600', 'total', '2', 'open', '0', 'cb:success', '{"class":"Done"}');
    await cluster.sadd(pending, 'j1');
    await cluster.sadd(failed, 'j0');
    await cluster.sadd(dead, 'j0');
    const settled = await onSource(hash, (source) => settleMember(source, keys, bid, 'j1', 'success', 1000));
    expect(settled).to.include({ success: true, complete: false });
    expect(settled!.outbox).to.deep.equal([{ event: 'success', json: '{"class":"Done"}' }]);
    expect(await cluster.exists(pending)).to.equal(0);
    expect(await cluster.ttl(failed)).to.be.greaterThan(0);
  });

  it('a cluster call waits out a slot held open, then runs (an enqueue whose keys are not all on one side)', async () => {
    const q = freshQueue();
    await cluster.lpush(keys.queue(q), job(q, 'waiting')); // on the source; its schedule and pause keys exist nowhere
    const move = await SlotMove.open(setup, keys.queue(q));
    let enqueued: Promise<Array<{ jid: string }>>;
    try {
      enqueued = enqueueJobs(cluster, keys, [
        { queue: q, queueKey: keys.queue(q), json: job(q, 'new'), jid: `${q}-new` },
      ]);
      enqueued.catch(() => {});
      await sleep(3000); // longer than ioredis' default redirections last (16 TRYAGAINs, 100 ms apart)
    } finally {
      await move.close();
    }
    expect(await enqueued).to.deep.equal([{ jid: `${q}-new`, conflict: false }]);
    expect(await cluster.lrange(keys.queue(q), 0, -1)).to.deep.equal([job(q, 'new'), job(q, 'waiting')]);
  });
});
