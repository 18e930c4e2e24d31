// Producing jobs: the payload written, enqueueAll's all-or-nothing batch, and a producer-only node.
import { expect } from 'chai';
import { InvalidJobError } from '../../src/job/job';
import { nowSeconds } from '../../src/job/time';
import type { BulkJob } from '../../src/nexq';
import { NodeTest, sleep, useNodes } from '../support/node';

async function nothingWritten(t: NodeTest): Promise<void> {
  expect(await t.redis.keys(`${t.ns}:*`)).to.deep.equal([]);
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('enqueueing', () => {
  const t = useNodes();

  it('writes a Sidekiq-shaped payload with float timestamps and registers the queue', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const jid = await producer.enqueue('mail', 'Mailer::Welcome', [1, 'two', { three: 3 }]);
    const [raw] = await t.redis.lrange(t.keys.queue('mail'), 0, -1);
    expect(JSON.parse(raw)).to.include({ retry: true, queue: 'mail', class: 'Mailer::Welcome', jid });
    expect(JSON.parse(raw).args).to.deep.equal([1, 'two', { three: 3 }]);
    expect(raw)
      .to.match(/"created_at":\d+\.\d+/)
      .and.to.match(/"enqueued_at":\d+\.\d+/);
    expect(await t.redis.smembers(t.keys.queues)).to.deep.equal(['mail']);
  });

  it('uses the jid and retry given in the options', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    expect(await producer.enqueue('default', 'Record', [], { jid: 'my-jid', retry: 3 })).to.equal('my-jid');
    const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    expect(JSON.parse(raw)).to.include({ jid: 'my-jid', retry: 3 });
  });

  it('rejects args that are not an array, and writes nothing', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const err = await rejection(producer.enqueue('default', 'Record', 'nope' as unknown as unknown[]));
    expect(err).to.be.instanceOf(InvalidJobError);
    await nothingWritten(t);
  });

  it('writes a whole valid batch in one go and returns the jids in order', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const before = nowSeconds();
    const jobs: BulkJob[] = [
      { queue: 'default', class: 'Record', args: [1] },
      { queue: 'default', class: 'Record', args: [2], at: new Date(Date.now() + 60_000) },
      { queue: 'other', class: 'Record', args: [3], options: { jid: 'third' } },
      { queue: 'default', class: 'Record', args: [4], in: 120 },
    ];
    const jids = await producer.enqueueAll(jobs);
    expect(jids).to.have.length(4);
    expect(jids[2]).to.equal('third');

    const queued = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((s) => JSON.parse(s));
    expect(queued.map((j) => j.jid)).to.deep.equal([jids[0]]);
    expect(JSON.parse((await t.redis.lrange(t.keys.queue('other'), 0, -1))[0]).jid).to.equal('third');

    const scheduled = await t.redis.zrange(t.keys.schedule('default'), 0, -1, 'WITHSCORES');
    expect(JSON.parse(scheduled[0]).jid).to.equal(jids[1]);
    // By Redis' clock (docs/time.md), which the node reads to within half a round trip of this one.
    expect(Number(scheduled[1])).to.be.within(before + 59, nowSeconds() + 61);
    expect(JSON.parse(scheduled[2]).jid).to.equal(jids[3]);
    expect(Number(scheduled[3])).to.be.within(before + 120 - 0.05, nowSeconds() + 120 + 0.05);
  });

  it('rejects a batch with one entry whose args are not an array, and writes none of it', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const jobs = [
      { queue: 'default', class: 'Record', args: [1] },
      { queue: 'default', class: 'Record', args: [2], in: 30 },
      { queue: 'default', class: 'Record', args: { not: 'an array' } },
    ] as unknown as BulkJob[];
    expect(await rejection(producer.enqueueAll(jobs))).to.be.instanceOf(InvalidJobError);
    await nothingWritten(t);
  });

  it('rejects a batch with one bad queue name, and writes none of it', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const jobs: BulkJob[] = [
      { queue: 'default', class: 'Record', args: [1] },
      { queue: 'bad queue', class: 'Record', args: [2] },
    ];
    const err = await rejection(producer.enqueueAll(jobs));
    expect(err).to.be.instanceOf(InvalidJobError);
    expect((err as Error).message).to.contain('bad queue');
    await nothingWritten(t);
  });

  it('rejects a batch entry that is not an object, or that has both at and in, and writes nothing', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const good: BulkJob = { queue: 'default', class: 'Record', args: [] };
    expect(await rejection(producer.enqueueAll([good, null as unknown as BulkJob]))).to.be.instanceOf(InvalidJobError);
    expect(await rejection(producer.enqueueAll([good, { ...good, at: new Date(), in: 5 }]))).to.be.instanceOf(
      InvalidJobError,
    );
    await nothingWritten(t);
  });

  it('rejects an invalid date, an unusable retry option and an empty class name', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    expect(await rejection(producer.enqueueAt('default', new Date('nope'), 'Record'))).to.be.instanceOf(
      InvalidJobError,
    );
    expect(await rejection(producer.enqueue('default', 'Record', [], { retry: -1 }))).to.be.instanceOf(InvalidJobError);
    expect(await rejection(producer.enqueue('default', '', []))).to.be.instanceOf(InvalidJobError);
    await nothingWritten(t);
  });

  it('returns no jids and writes nothing for an empty batch', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    expect(await producer.enqueueAll([])).to.deep.equal([]);
    await nothingWritten(t);
  });
});

describe('enqueueing into keys of the wrong type', () => {
  const t = useNodes();

  async function keysNow(): Promise<string[]> {
    return (await t.redis.keys(`${t.ns}:*`)).sort();
  }

  it('refuses one job whose queue key holds another type with a clear error, writing nothing', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await t.redis.set(t.keys.queue('default'), 'not a list');
    const before = await keysNow();
    const err = await rejection(producer.enqueue('default', 'Record', [1]));
    expect(String(err)).to.contain(`WRONGTYPE nexq: ${t.keys.queue('default')} holds a string, not a list`);
    expect(await keysNow()).to.deep.equal(before);
    expect(await t.redis.get(t.keys.queue('default'))).to.equal('not a list');
  });

  it('refuses one job while the queue set holds another type, pushing nothing', async function () {
    // The per-queue layout adds to the queue set outside the script, with Redis' own error.
    if (t.keys.perQueue) this.skip();
    const producer = await t.start({ mode: 'enqueuer' });
    await t.redis.set(t.keys.queues, 'not a set');
    const err = await rejection(producer.enqueue('default', 'Record', [1]));
    expect(String(err)).to.contain(`WRONGTYPE nexq: ${t.keys.queues} holds a string, not a set`);
    expect(await keysNow()).to.deep.equal([t.keys.queues]);
  });

  it('enqueues a job to run now while the schedule is broken, and refuses one to run later', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await t.redis.set(t.keys.schedule('default'), 'not a sorted set');
    await producer.enqueue('default', 'Record', [1]);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    const err = await rejection(producer.enqueueIn('default', 60, 'Record', [2]));
    expect(String(err)).to.contain(`WRONGTYPE nexq: ${t.keys.schedule('default')} holds a string, not a zset`);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
  });
});

describe('a node in enqueuer mode', () => {
  const t = useNodes();

  it('enqueues, but never fetches: the job stays in its queue', async () => {
    const producer = await t.start({ mode: 'enqueuer', queues: ['default'] });
    await producer.enqueue('default', 'Record', [t.url, t.out('x'), 1]);
    await sleep(300);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.exists(t.keys.processes)).to.equal(0);
  });

  it('rejects subscribe, unsubscribe and subscriptions', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const attempt of [producer.subscribe('a'), producer.unsubscribe('a'), producer.subscriptions()]) {
      expect(String(await rejection(attempt))).to.contain('enqueuer mode');
    }
  });
});
