// Regression tests from the review of the per-queue key layout (issue #9): each names the finding
// it guards (F1..F10 in the session's closing note); the shared layout runs the same where it applies.
import { expect } from 'chai';
import { Keys } from '../../src/redis/keys';
import { keySlot } from '../../src/redis/client';
import { checkSlotsOn, defineScripts } from '../../src/redis/scripts';
import { enqueueJobs, PartialEnqueueError } from '../../src/redis/enqueue-scripts';
import { resolveConfig } from '../../config/validate';
import type { NodeReaper } from '../../src/actors/node-reaper';
import { ActorNames } from '../../src/run/node-context';
import type { Manager } from '../../src/actors/manager';
import { useNodes, waitFor, sleep } from '../support/node';

describe('per-queue key layout: review findings', () => {
  const t = useNodes();
  const keys = () => new Keys(t.ns, 'per-queue');

  for (const layout of ['shared', 'per-queue'] as const) {
    it(`F1 (${layout}): claiming a dead node that has no backup list drops its global-limit slots (else the queue is stuck)`, async () => {
      const k = new Keys(t.ns, layout);
      // A node killed while running an at-most-once job of a queue limited to 1 across nodes: its
      // backup entry is gone (taken), its slot is still counted.
      await t.redis.zadd(k.nodes, String(Date.now() / 1000 - 600), 'ghost');
      await t.redis.hset(k.running('lim'), 'ghost', 1);
      const survivor = await t.start({
        keyLayout: layout,
        nodeId: 'survivor',
        queues: [{ name: 'lim', concurrency: 1, globalConcurrency: 1 }],
        nodeCheckInterval: 3600,
      });
      const reaper = survivor.node.ctx.registry.lookup<NodeReaper>(ActorNames.nodeReaper);
      await reaper.recoverDeadNodes();
      await reaper.recoverDeadNodes();
      await reaper.recoverDeadNodes();
      expect(await t.redis.zscore(k.nodes, 'ghost')).to.equal(null); // claimed
      expect(await t.redis.hget(k.running('lim'), 'ghost')).to.equal(null);
    });

    it(`F2 (${layout}): a due job bound for another queue whose list is broken is not lost`, async () => {
      const k = new Keys(t.ns, layout);
      await t.redis.set(k.queue('b'), 'not a list');
      const raw = JSON.stringify({ class: 'Record', args: [], jid: 'x-1', queue: 'b', retry_count: 1 });
      await t.redis.zadd(k.retry('a'), '1', raw);
      await t.redis.sadd(k.queues, 'a', 'b');
      const node = await t.start({ keyLayout: layout, nodeId: 'n1', queues: ['c'] });
      await sleep(2500); // the scheduler polls every second
      const where = [
        await t.redis.zcard(k.retry('a')),
        await t.redis.llen(k.queue('a')),
        await t.redis.llen(k.backup('n1', 'a')),
      ];
      // shared layout: enqueue-due refuses (queue not a list) and the job stays in retry.
      expect(
        where.reduce((x, y) => x + y, 0),
        'the job is somewhere',
      ).to.equal(1);
      expect(node).to.exist;
    });
  }

  it('F3: a due job bound for a queue name with braces is not parked in the backup list with no worker', async () => {
    const k = keys();
    const raw = JSON.stringify({ class: 'Record', args: [], jid: 'x-2', queue: 'c{d}', retry_count: 1 });
    await t.redis.zadd(k.retry('a'), '1', raw);
    await t.redis.sadd(k.queues, 'a');
    await t.start({ keyLayout: 'per-queue', nodeId: 'n2', queues: ['a'] });
    await waitFor(async () => (await t.redis.zcard(k.retry('a'))) === 0, 5000, 'the scheduler to take it');
    await sleep(1500);
    // It left retry, reached no queue and no dead set, and sits in n2's backup list of 'a'
    // until n2 reclaims or restarts; the index says it is queued in 'a'.
    expect(await t.redis.llen(k.backup('n2', 'a')), 'parked in the backup list').to.equal(0);
  });

  it('F4: a unique lock taken in one queue is released when its retry ran in retry_queue', async () => {
    const k = keys();
    const out = t.out('uq');
    // A unique FailOnce job of queue a with retry_queue b: its retry goes through a's retry set
    // into b (a cross-slot move). Planted as nexq's enqueue writes it (no API option for retry_queue).
    const jid = 'uq-1';
    const raw = JSON.stringify({
      class: 'FailOnce',
      args: [t.url, out],
      jid,
      queue: 'a',
      retry: 3,
      retry_queue: 'b',
      unique_key: 'uk',
      unique_until: 'success',
      enqueued_at: Date.now() / 1000,
    });
    await t.redis.set(k.uniqueLock('uk', 'a'), jid, 'EX', 600);
    await t.redis.sadd(k.queues, 'a', 'b');
    await t.redis.lpush(k.queue('a'), raw);
    await t.start({ keyLayout: 'per-queue', queues: ['a', 'b'] });
    const entry = await waitFor(async () => (await t.redis.zrange(k.retry('a'), 0, -1))[0], 5000, 'the retry entry');
    await t.redis.zadd(k.retry('a'), '1', entry); // due now
    await t.waitForRecords(out, 1);
    await sleep(300);
    expect(await t.redis.get(k.uniqueLock('uk', 'a')), `lock of ${jid}`).to.equal(null);
  });

  it('F5: an enqueue over several queues that fails for one says which jobs it wrote for the others', async () => {
    const k = keys();
    const redis = defineScripts(t.redis.duplicate());
    checkSlotsOn(redis);
    await t.redis.set(k.queue('b'), 'not a list');
    const err = await enqueueJobs(redis, k, [
      { queue: 'a', queueKey: k.queue('a'), json: '{"jid":"ja","queue":"a"}', jid: 'ja' },
      { queue: 'b', queueKey: k.queue('b'), json: '{"jid":"jb","queue":"b"}', jid: 'jb' },
    ]).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PartialEnqueueError);
    expect((err as PartialEnqueueError).written).to.deep.equal([{ jid: 'ja', conflict: false }, undefined]);
    expect(await t.redis.llen(k.queue('a'))).to.equal(1);
    redis.disconnect();
  });

  it("F6: a configured node id with braces is refused with the per-queue layout (it moves the backup list's hash tag)", () => {
    const k = new Keys('ns', 'per-queue');
    expect(keySlot(k.backup('w{1}', 'q'))).to.not.equal(keySlot(k.queue('q')));
    expect(() => resolveConfig({ keyLayout: 'per-queue', nodeId: 'w{1}', namespace: 'ns' })).to.throw();
  });
  it('F7: subscribing at run time to a queue name with braces is refused, not a manager crash that drops the other subscriptions', async () => {
    const node = await t.start({ keyLayout: 'per-queue', queues: ['a'] });
    await node.subscribe('c');
    const err = await node.subscribe('x{y}').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    await sleep(300);
    expect((await node.subscriptions()).map((q) => q.name).sort()).to.deep.equal(['a', 'c']);
  });

  it('F8: a reclaim during a cross-queue move does not run the job twice', async () => {
    const k = keys();
    const out = t.out('f8');
    const node = await t.start({ keyLayout: 'per-queue', nodeId: 'n8', queues: ['a', 'b'] });
    const { redis } = node.node.ctx;
    // Hold the move between its first step (into n8's backup list of 'a') and its second, as a
    // slow master would, and let the manager reclaim meanwhile (as after any failed poll).
    const sadd = redis.sadd.bind(redis) as (...args: unknown[]) => Promise<number>;
    let held = false;
    (redis as unknown as { sadd: unknown }).sadd = async (...args: unknown[]) => {
      if (!held && args[0] === k.queues && args[1] === 'b' && (await t.redis.llen(k.backup('n8', 'a'))) > 0) {
        held = true;
        const manager = node.node.ctx.registry.lookup<Manager>(ActorNames.manager);
        (manager as unknown as { send(m: unknown): void }).send({ type: 'reclaim', queue: 'a' });
        await sleep(1500);
      }
      return sadd(...args);
    };
    const raw = JSON.stringify({ class: 'Record', args: [t.url, out, 'once'], jid: 'x-8', queue: 'b', retry_count: 1 });
    await t.redis.zadd(k.retry('a'), '1', raw);
    await t.waitForRecords(out, 1, 5000);
    await sleep(1500);
    expect(await t.redis.llen(out), 'runs').to.equal(1);
  });
  for (const layout of ['shared', 'per-queue'] as const) {
    it(`F9 (${layout}): a due job whose queue key is broken does not hold back the due jobs of other queues`, async () => {
      const k = new Keys(t.ns, layout);
      const out = t.out('f9');
      await t.redis.set(k.queue('a'), 'not a list');
      await t.redis.sadd(k.queues, 'a', 'z');
      await t.redis.zadd(
        k.schedule('a'),
        '1',
        JSON.stringify({ class: 'Record', args: [t.url, out, 'a'], jid: 'f9-a', queue: 'a' }),
      );
      await t.redis.zadd(
        k.schedule('z'),
        '2',
        JSON.stringify({ class: 'Record', args: [t.url, out, 'z'], jid: 'f9-z', queue: 'z' }),
      );
      await t.start({ keyLayout: layout, queues: ['z'] });
      const [record] = await t.waitForRecords(out, 1, 4000);
      expect(record.value).to.equal('z');
    });
  }
  it('F10: a cross-queue move whose target index key is broken runs the job once (the index only describes)', async () => {
    const k = keys();
    const out = t.out('f10');
    await t.redis.set(k.jobIndex('b'), 'not a hash');
    await t.redis.sadd(k.queues, 'a', 'b');
    await t.redis.zadd(
      k.retry('a'),
      '1',
      JSON.stringify({ class: 'Record', args: [t.url, out, 'once'], jid: 'f10', queue: 'b', retry_count: 1 }),
    );
    await t.start({ keyLayout: 'per-queue', queues: ['a', 'b'] });
    await t.waitForRecords(out, 1, 5000);
    await sleep(1500);
    expect(await t.redis.llen(out), 'runs').to.equal(1);
  });
});
