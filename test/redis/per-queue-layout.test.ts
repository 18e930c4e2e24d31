// The per-queue key layout (issue #9): every key of a queue carries the queue's hash tag, so a
// Redis Cluster spreads the queues over its masters. Run here on one server with the layout forced:
// every script call then checks that its keys share a slot (CrossSlotError otherwise), so a key
// built for the wrong queue fails these tests as CROSSSLOT would fail them on a cluster.
import { expect } from 'chai';
import { Keys } from '../../src/redis/keys';
import { keySlot } from '../../src/redis/client';
import { checkSlotsOn, CrossSlotError, defineScripts } from '../../src/redis/scripts';
import { enqueueJobs } from '../../src/redis/enqueue-scripts';
import type { NodeReaper } from '../../src/actors/node-reaper';
import { ActorNames } from '../../src/run/node-context';
import { readStats } from '../../src/admin/stats';
import { setJobs } from '../../src/admin/listing';
import { retryAll } from '../../src/admin/actions';
import { LEASE_SECONDS } from '../../src/redis/cross-queue-move';
import { PartialEnqueueError } from '../../src/redis/enqueue-scripts';
import { useNodes, waitFor } from '../support/node';

const QUEUES = ['alpha', 'beta', 'gamma'];

describe('per-queue key layout', () => {
  const t = useNodes();
  const start = (options = {}) => t.start({ keyLayout: 'per-queue', queues: QUEUES, ...options });
  /** The test's keys in the per-queue layout, whatever NEXQ_TEST_KEY_LAYOUT says. */
  const keys = () => new Keys(t.ns, 'per-queue');

  it("runs jobs of several queues, each queue in its own slot, the node-wide keys in the namespace's", async () => {
    const node = await start();
    const out = t.out('ran');
    const jids = await node.enqueueAll(QUEUES.map((queue) => ({ queue, class: 'Record', args: [t.url, out, queue] })));
    const ran = await t.waitForRecords(out, 3);
    expect(ran.map((r) => r.queue).sort()).to.deep.equal(QUEUES);
    expect(ran.map((r) => r.jid).sort()).to.deep.equal([...jids].sort());
    const k = keys();
    expect(k.queue('alpha')).to.equal(`${t.ns}:queue:{alpha}`);
    expect(keySlot(k.queue('alpha'))).to.equal(keySlot(k.retry('alpha')));
    expect(keySlot(k.queue('alpha'))).to.not.equal(keySlot(k.queue('beta')));
    expect((await t.redis.smembers(k.queues)).sort()).to.deep.equal(QUEUES);
    expect(k.queues).to.equal(`{${t.ns}}:queues`);
    // Nothing was written under the shared layout's names.
    expect(await t.redis.exists(`${t.ns}:queue:alpha`, `${t.ns}:queues`, `${t.ns}:nexq:jobs`)).to.equal(0);
    await waitFor(async () => Number(await t.redis.get(k.stat('processed'))) === 3, 5000, 'processed stat of 3');
  });

  it("moves scheduled jobs of each queue from that queue's schedule set", async () => {
    const node = await start();
    const out = t.out('later');
    await node.enqueueAll([
      { queue: 'beta', class: 'Record', args: [t.url, out, 'b'], in: 0.2 },
      { queue: 'gamma', class: 'Record', args: [t.url, out, 'g'], in: 0.2 },
    ]);
    expect(await t.redis.zcard(keys().schedule('beta'))).to.be.oneOf([0, 1]);
    const ran = await t.waitForRecords(out, 2);
    expect(ran.map((r) => r.value).sort()).to.deep.equal(['b', 'g']);
    expect(await t.redis.zcard(keys().schedule('beta'))).to.equal(0);
  });

  it("files failures in the queue's own retry and dead sets, and the admin reads them across queues", async () => {
    const node = await start();
    await node.enqueue('alpha', 'Fail', ['a'], { retry: 0 });
    await node.enqueue('gamma', 'Fail', ['g'], { retry: 0 });
    const k = keys();
    await waitFor(
      async () => (await t.redis.zcard(k.dead('alpha'))) + (await t.redis.zcard(k.dead('gamma'))) === 2,
      5000,
      'two dead jobs',
    );
    const ctx = node.node.ctx;
    expect((await readStats(ctx)).dead).to.equal(2);
    const listed = await setJobs(ctx, 'dead', 10);
    expect(listed.map((v) => v.queue).sort()).to.deep.equal(['alpha', 'gamma']);
    const retried = await node.enqueue('beta', 'FailOnce', [t.url, t.out('unused')]);
    await waitFor(async () => (await t.redis.zcard(k.retry('beta'))) === 1, 5000, 'a retry entry in beta');
    expect((await node.show(retried))?.state).to.equal('retry');
  });

  it('moves a due retry bound for another queue (retry_queue) into that queue, across slots', async () => {
    const node = await start();
    const out = t.out('moved');
    const k = keys();
    const raw = JSON.stringify({
      class: 'Record',
      args: [t.url, out, 'moved'],
      jid: 'cross-1',
      queue: 'beta',
      retry: true,
      retry_count: 1,
    });
    await t.redis.sadd(k.queues, 'alpha');
    await t.redis.zadd(k.retry('alpha'), String(Date.now() / 1000 - 1), raw);
    const [ran] = await t.waitForRecords(out, 1);
    expect(ran).to.include({ jid: 'cross-1', queue: 'beta' });
    expect(await t.redis.zcard(k.retry('alpha'))).to.equal(0);
    expect(await t.redis.llen(k.backup(node.node.ctx.config.nodeId, 'alpha'))).to.equal(0);
    await waitFor(
      async () => (await t.redis.hlen(k.jobIndex('alpha'))) + (await t.redis.hlen(k.jobIndex('beta'))) === 0,
      5000,
      'both indexes empty',
    );
  });

  it('keeps a cross-queue retry leased in its set while its destination is broken, and moves it once repaired', async () => {
    const node = await start({ queues: ['beta'] });
    const out = t.out('leased');
    const k = keys();
    await t.redis.set(k.queue('beta'), 'not a list');
    const raw = JSON.stringify({
      class: 'Record',
      args: [t.url, out, 'leased'],
      jid: 'cross-2',
      queue: 'beta',
      retry: true,
      retry_count: 1,
    });
    await t.redis.sadd(k.queues, 'alpha');
    await t.redis.zadd(k.retry('alpha'), String(Date.now() / 1000 - 1), raw);
    // The push failed: the job stays in its set, due again when the lease ends.
    const leasedTo = await waitFor(
      async () => {
        const score = Number(await t.redis.zscore(k.retry('alpha'), raw));
        return score > Date.now() / 1000 + LEASE_SECONDS / 2 && score;
      },
      5000,
      'the lease',
    );
    expect(leasedTo).to.be.above(0);
    expect(await t.redis.llen(k.backup(node.node.ctx.config.nodeId, 'alpha'))).to.equal(0);
    // Repaired, and the lease ended (set back rather than waited for): it moves and runs once.
    await t.redis.del(k.queue('beta'));
    await t.redis.zadd(k.retry('alpha'), 'XX', String(Date.now() / 1000 - 1), raw);
    const [ran] = await t.waitForRecords(out, 1);
    expect(ran).to.include({ jid: 'cross-2', queue: 'beta' });
    expect(await t.redis.zcard(k.retry('alpha'))).to.equal(0);
  });

  it('carries a unique lock across with a cross-queue retry, keeping the delivery count', async () => {
    const node = await start({ mode: 'enqueuer' });
    const k = keys();
    const raw = JSON.stringify({
      class: 'Record',
      args: [],
      jid: 'cross-3',
      queue: 'beta',
      retry: true,
      retry_count: 1,
      unique_key: 'u1',
      unique_until: 'success',
    });
    await t.redis.set(k.uniqueLock('u1', 'alpha'), 'cross-3', 'EX', 600);
    await t.redis.hset(k.jobIndex('alpha'), 'cross-3', `4\tretry\t${Date.now() / 1000 - 1}`);
    await t.redis.zadd(k.retry('alpha'), String(Date.now() / 1000 - 1), raw);
    expect(await retryAll(node.node.ctx, 'retry')).to.deep.equal([{ jid: 'cross-3', queue: 'beta' }]);
    expect(await t.redis.get(k.uniqueLock('u1', 'alpha'))).to.equal(null);
    expect(await t.redis.get(k.uniqueLock('u1', 'beta'))).to.equal('cross-3');
    expect(await t.redis.pttl(k.uniqueLock('u1', 'beta'))).to.be.within(1, 600_000);
    expect(await t.redis.hget(k.jobIndex('beta'), 'cross-3')).to.equal('4\tqueued\tbeta');
    expect(await t.redis.hexists(k.jobIndex('alpha'), 'cross-3')).to.equal(0);
  });

  it('says which jobs of an enqueueAll were written when one queue refuses its own', async () => {
    const node = await start({ mode: 'enqueuer' });
    const k = keys();
    await node.enqueue('beta', 'Record', []);
    const err = await node
      .enqueueAll([
        { queue: 'alpha', class: 'Record', args: [] },
        { queue: 'beta', class: 'Record', args: [], options: { maxlen: 1 } },
      ])
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PartialEnqueueError);
    const { written } = err as PartialEnqueueError;
    expect(written[1]).to.equal(undefined);
    expect(await t.redis.lrange(k.queue('alpha'), 0, -1)).to.have.length(1);
    expect(JSON.parse((await t.redis.lrange(k.queue('alpha'), 0, -1))[0]).jid).to.equal(written[0]!.jid);
    expect(await t.redis.llen(k.queue('beta'))).to.equal(1);
  });

  it('holds a unique lock within its queue', async () => {
    const node = await start({ mode: 'enqueuer' });
    const unique = { for: 60, key: 'same' };
    const first = await node.enqueue('alpha', 'Record', [], { unique });
    expect(await node.enqueue('alpha', 'Record', [], { unique })).to.equal(first);
    expect(await node.enqueue('beta', 'Record', [], { unique })).to.not.equal(first);
    expect(await t.redis.get(keys().uniqueLock('same', 'alpha'))).to.equal(first);
  });

  it('pauses one queue while the others run', async () => {
    const node = await start();
    await node.pause('alpha', 'out');
    expect(await node.paused()).to.deep.equal({ alpha: 'out' });
    const out = t.out('paused');
    await node.enqueue('alpha', 'Record', [t.url, out, 'a']);
    await node.enqueue('beta', 'Record', [t.url, out, 'b']);
    expect((await t.waitForRecords(out, 1)).map((r) => r.value)).to.deep.equal(['b']);
    expect(await t.redis.llen(keys().queue('alpha'))).to.equal(1);
    await node.resume('alpha');
    expect((await t.waitForRecords(out, 2)).map((r) => r.value).sort()).to.deep.equal(['a', 'b']);
  });

  it("finds and deletes a job by jid through its queue's index", async () => {
    const node = await start({ mode: 'enqueuer' });
    const jid = await node.enqueueIn('gamma', 3600, 'Record', []);
    const shown = await node.show(jid);
    expect(shown).to.include({ state: 'schedule', jid });
    expect(await node.deleteJob(jid)).to.equal(true);
    expect(await node.show(jid)).to.equal(undefined);
    expect(await t.redis.zcard(keys().schedule('gamma'))).to.equal(0);
  });

  it("recovers a dead node's backup lists in every queue: a claim, then one requeue per list", async () => {
    const node = await start({ mode: 'enqueuer' });
    const k = keys();
    await t.redis.zadd(k.nodes, String(Date.now() / 1000 - 600), 'ghost');
    for (const queue of ['alpha', 'beta'])
      await t.redis.rpush(
        k.backup('ghost', queue),
        JSON.stringify({ class: 'Record', jid: `g-${queue}`, queue, args: [] }),
      );
    const survivor = await start({ nodeId: 'survivor', queues: ['delta'], nodeCheckInterval: 3600 }); // no round of its own
    const reaper = survivor.node.ctx.registry.lookup<NodeReaper>(ActorNames.nodeReaper);
    expect(await reaper.recoverDeadNodes()).to.equal(2);
    expect(await t.redis.zscore(k.nodes, 'ghost')).to.equal(null);
    for (const queue of ['alpha', 'beta']) {
      expect(await t.redis.llen(k.backup('ghost', queue))).to.equal(0);
      expect(await t.redis.lrange(k.queue(queue), 0, -1)).to.have.length(1);
    }
    expect(node).to.exist;
  });

  it('sweeps the backup lists of a node gone from the beat set, once it is missing from two sweeps', async () => {
    const k = keys();
    await t.redis.rpush(
      k.backup('vanished', 'gamma'),
      JSON.stringify({ class: 'Record', jid: 'v-1', queue: 'gamma', args: [] }),
    );
    const survivor = await start({ nodeId: 'survivor', queues: ['delta'], nodeCheckInterval: 3600 }); // no round of its own
    const reaper = survivor.node.ctx.registry.lookup<NodeReaper>(ActorNames.nodeReaper);
    expect(await reaper.sweepOrphans()).to.equal(0); // first sighting: it may be a node starting up
    expect(await reaper.sweepOrphans()).to.equal(1);
    expect(await t.redis.lrange(k.queue('gamma'), 0, -1)).to.have.length(1);
  });

  it('refuses a script call whose keys are in different slots', async () => {
    const redis = defineScripts(t.redis.duplicate());
    checkSlotsOn(redis);
    const k = keys();
    const err = await enqueueJobs(redis, k, [
      { queue: 'alpha', queueKey: k.queue('beta'), json: '{}', jid: 'x' },
    ]).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(CrossSlotError);
    expect(await t.redis.llen(k.queue('beta'))).to.equal(0);
    redis.disconnect();
  });
});
