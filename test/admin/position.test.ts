// `nexq.position(jid)`: the jobs ahead of a waiting job (plain and fair queues), its estimated start
// from its queue's recent rate, and where a job that is not waiting is instead.
import { expect } from 'chai';
import { InvalidJobError } from '../../src/job/job';
import type { QueuedPosition } from '../../src/admin/position';
import { listPlace, SEARCH_MOST } from '../../src/redis/queue-position';
import { useNodes, waitFor } from '../support/node';

describe('nexq.position', () => {
  const t = useNodes();

  async function queued(node: Awaited<ReturnType<typeof t.start>>, jid: string): Promise<QueuedPosition> {
    const position = await node.position(jid);
    expect(position?.state).to.equal('queued');
    return position as QueuedPosition;
  }

  it('counts the jobs ahead in a plain queue; without a recent rate the start is unknown', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    const jids: string[] = [];
    for (let i = 0; i < 5; i++) jids.push(await node.enqueue('default', 'Record', [i]));
    for (const [i, jid] of jids.entries()) {
      const position = await queued(node, jid);
      expect(position).to.include({ jid, queue: 'default', aheadInQueue: i });
      expect(position).not.to.have.any.keys('group', 'estimate', 'atLeast', 'ratePerSecond', 'estimatedStartMs');
    }
  });

  it("estimates the start from the queue's recent rate, and gives none while the queue is paused", async () => {
    const worker = await t.start({ queues: ['work'] });
    for (let i = 0; i < 6; i++) await worker.enqueue('work', 'Record', [t.url, t.out('ran'), i]);
    await t.waitForRecords(t.out('ran'), 6);
    await t.stop(worker); // its last counts are flushed at the stop
    const producer = await t.start({ mode: 'enqueuer' });
    const jids = [await producer.enqueue('work', 'Record', []), await producer.enqueue('work', 'Record', [])];
    const position = await queued(producer, jids[1]);
    expect(position.aheadInQueue).to.equal(1);
    expect(position.ratePerSecond).to.be.greaterThan(0);
    // The figures agree: one job ahead at the rate given (to 3 significant digits).
    expect(position.estimatedStartMs).to.be.closeTo(
      1000 / position.ratePerSecond!,
      1000 / position.ratePerSecond! / 100,
    );
    expect(position.estimatedStartAt! - position.estimatedStartMs! / 1000).to.be.closeTo(Date.now() / 1000, 60);
    await producer.pause('work', 'out');
    const paused = await queued(producer, jids[1]);
    expect(paused).to.include({ paused: true, aheadInQueue: 1 });
    expect(paused.ratePerSecond).to.be.greaterThan(0);
    expect(paused).not.to.have.any.keys('estimatedStartMs', 'estimatedStartAt');
  });

  it("ranks a fair queue's job in its group and estimates the jobs ahead by the ring's turn", async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const jids: Record<string, string> = {};
    const plan: Array<[string, string]> = [
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
      ['a3', 'a'],
      ['c1', 'c'],
      ['b2', 'b'],
      ['a4', 'a'],
    ];
    for (const [name, group] of plan)
      jids[name] = await enqueuer.enqueue('default', 'Sleep', [name === 'a1' ? 20_000 : 1], { group });
    await t.start({ queues: [{ name: 'default', concurrency: 1, fair: true }], shutdownTimeout: 50 });
    // The first fetch sorted every job into its group and took a1: the ring turned to b, c, a.
    const { jobs, ring } = t.keys.fair('default');
    await waitFor(async () => (await t.redis.zcard(jobs)) === 6, 5000, 'six jobs in their groups');
    expect(await t.redis.lrange(ring, 0, -1)).to.deep.equal(['b', 'c', 'a']);
    // The order of the turns: b1 c1 a2, b2 a3, a4.
    const expected: Record<string, [number, number]> = {
      b1: [0, 0],
      c1: [1, 0],
      a2: [2, 0],
      b2: [3, 1],
      a3: [4, 1],
      a4: [5, 2],
    };
    for (const [name, [inQueue, inGroup]] of Object.entries(expected)) {
      const position = await queued(enqueuer, jids[name]);
      expect(position, name).to.include({
        group: name[0],
        aheadInQueue: inQueue,
        aheadInGroup: inGroup,
        estimate: true,
      });
    }
    // A paused group leaves the ring: its jobs no longer come first, and its own job waits for it.
    await enqueuer.pauseGroup('default', 'b');
    expect(await queued(enqueuer, jids.a4)).to.include({ aheadInQueue: 3 }); // c1 a2 a3
    const held = await queued(enqueuer, jids.b2);
    expect(held).to.include({ groupPaused: true });
    expect(held).not.to.have.any.keys('estimatedStartMs');
  });

  it("counts the groups parked at their groupConcurrency as served after the job's own", async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const jids: string[] = [];
    for (const group of ['a', 'b', 'a', 'b', 'a', 'b'])
      jids.push(await enqueuer.enqueue('default', 'Sleep', [10_000], { group }));
    // Three slots, one per group: a1 and b1 run, and the next fetch parks both groups.
    const queues = [{ name: 'default', concurrency: 3, fair: true, groupConcurrency: 1 }];
    await t.start({ queues, shutdownTimeout: 50 });
    const { parked, ring } = t.keys.fair('default');
    await waitFor(async () => (await t.redis.llen(parked)) === 2, 5000, 'both groups parked');
    expect(await t.redis.llen(ring)).to.equal(0);
    // a3 is second in group a; b has two waiting, served after a's turn: one of them first.
    const position = await queued(enqueuer, jids[4]);
    expect(position).to.include({ group: 'a', aheadInGroup: 1, aheadInQueue: 2, estimate: true });
  });

  it("counts a fair queue's jobs still in its inbox as ahead", async () => {
    const enqueuer = await t.start({ mode: 'enqueuer', queues: [{ name: 'default', fair: true }] });
    const jids = [];
    for (const group of ['a', 'b', 'a']) jids.push(await enqueuer.enqueue('default', 'Record', [], { group }));
    expect(await queued(enqueuer, jids[0])).to.include({ group: 'a', aheadInQueue: 0, aheadInGroup: 0 });
    expect(await queued(enqueuer, jids[2])).to.include({ group: 'a', aheadInQueue: 2, estimate: true });
  });

  it('says where a job is when it is not waiting, and undefined for a jid nexq does not know', async () => {
    const node = await t.start({ nodeId: 'runner' });
    const running = await node.enqueue('default', 'Sleep', [20_000]);
    await waitFor(async () => (await node.position(running))?.state === 'running', 5000, 'the job running');
    expect(await node.position(running)).to.deep.equal({
      jid: running,
      state: 'running',
      queue: 'default',
      node: 'runner',
    });
    const later = await node.enqueueIn('mail', 3600, 'Record', []);
    const scheduled = await node.position(later);
    expect(scheduled).to.include({ jid: later, state: 'schedule', queue: 'mail' });
    expect((scheduled as { at: number }).at).to.be.closeTo(Date.now() / 1000 + 3600, 60);
    const dead = await node.enqueue('default', 'Fail', ['no'], { retry: 0 });
    await waitFor(async () => (await node.position(dead))?.state === 'dead', 10_000, 'the job dead');
    expect(await node.position('no-such-jid')).to.equal(undefined);
  });

  it('refuses a jid that is not a non-empty string', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    for (const bad of ['', 42, null]) {
      const error = await node.position(bad as string).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(InvalidJobError);
      expect((error as Error).message).to.equal('jid must be a non-empty string');
    }
  });

  it('finds a job of a long queue from its ends only: exact near them, "at least" deeper', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    const key = t.keys.queue('long');
    const filler = (n: number) =>
      Array.from({ length: n }, (_, i) => JSON.stringify({ class: 'X', args: [i], jid: `f${i}`, queue: 'long' }));
    const push = async (n: number) => {
      const all = filler(n);
      for (let i = 0; i < all.length; i += 10_000) await t.redis.lpush(key, ...all.slice(i, i + 10_000));
    };
    try {
      await push(SEARCH_MOST + 10);
      const deep = await node.enqueue('long', 'X', []);
      await push(SEARCH_MOST + 10);
      const newest = await node.enqueue('long', 'X', []);
      expect(await queued(node, deep)).to.include({ aheadInQueue: SEARCH_MOST, atLeast: true });
      expect(await queued(node, newest)).to.include({ aheadInQueue: 2 * SEARCH_MOST + 21 });
      expect(await queued(node, newest)).not.to.have.property('atLeast');
    } finally {
      await t.redis.del(key); // 200,000 jobs would weigh on every later test that reads the whole keyspace
    }
  });

  it('searches a long list from both ends only, and says "at least" for a job deeper than that', async () => {
    const key = t.keys.queue('long');
    const filler = Array.from({ length: SEARCH_MOST + 1 }, (_, i) => `f${i}`);
    for (let i = 0; i < filler.length; i += 10_000) await t.redis.rpush(key, ...filler.slice(i, i + 10_000));
    await t.redis.rpush(key, 'middle');
    for (let i = 0; i < filler.length; i += 10_000) await t.redis.rpush(key, ...filler.slice(i, i + 10_000));
    await t.redis.lpush(key, 'newest');
    await t.redis.rpush(key, 'oldest');
    expect(await listPlace(t.redis, key, 'middle')).to.deep.equal({
      ahead: SEARCH_MOST,
      atLeast: true,
      length: 2 * SEARCH_MOST + 5,
    });
    expect(await listPlace(t.redis, key, 'oldest')).to.include({ ahead: 0, atLeast: false });
    expect(await listPlace(t.redis, key, 'newest')).to.include({ ahead: 2 * SEARCH_MOST + 4, atLeast: false });
    // Not in either window of a long list: deeper than both, as far as it can tell.
    expect(await listPlace(t.redis, key, 'gone')).to.include({ atLeast: true });
    await t.redis.rpush(t.keys.queue('short'), 'a', 'b');
    expect(await listPlace(t.redis, t.keys.queue('short'), 'gone')).to.equal(undefined);
    await t.redis.del(key); // 200,000 entries would weigh on every later test that reads the whole keyspace
  });
});
