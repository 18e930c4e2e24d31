// Failed jobs: the retry entry (fields, score, untouched bytes), the dead set, and retries running.
import { expect } from 'chai';
import { nowSeconds } from '../../src/job/time';
import { RedisServer } from '../support/redis-server';
import { onlyEntry } from '../support/sets';
import { NodeTest, useNodes, waitFor } from '../support/node';

/** Pushes a raw payload into the queue, as another producer would. */
async function pushRaw(t: NodeTest, raw: string, queue = 'default'): Promise<void> {
  await t.redis.sadd(t.keys.queues, queue);
  await t.redis.lpush(t.keys.queue(queue), raw);
}

/** Bounds of Sidekiq's backoff: count^4 + 15 + rand(30) * (count + 1) seconds. */
function expectRetryScore(score: number, count: number, before: number, after: number): void {
  expect(score).to.be.at.least(before + 15 + count ** 4);
  expect(score).to.be.at.most(after + 15 + count ** 4 + 30 * (count + 1));
}

describe('failed jobs (exq dialect)', () => {
  const t = useNodes();

  it('files a failed job in the retry set with retry_count 1, the error and failed_at, scored by the backoff', async () => {
    const node = await t.start({ nodeId: 'n1' });
    // failed_at is by the node's clock (Redis' TIME plus the time since it was read), the window by
    // this machine's: a loaded machine puts them a few ms apart (8 ms seen), so allow 50 ms.
    const before = nowSeconds() - 0.05;
    const jid = await node.enqueue('default', 'Fail', ['kaboom']);
    const { raw, job, score } = await onlyEntry(t, t.keys.retry('default'));
    const after = nowSeconds() + 0.05;
    expect(job).to.include({ jid, class: 'Fail', retry_count: 1, error_class: 'BoomError', error_message: 'kaboom' });
    expect(raw).to.match(/"failed_at":\d+\.\d+/);
    expect(job.failed_at).to.be.within(before, after);
    expect(job).not.to.have.property('retried_at');
    expectRetryScore(score, 1, before, after);
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 2000, 'an empty backup list');
  });

  it('keeps every field it does not rewrite byte for byte, unknown fields included', async () => {
    await t.start();
    const raw =
      '{"class":"Fail","args":["x"],"jid":"raw-1","queue":"default","retry":true,' +
      '"custom":{"a":[1,2]},"created_at":1700000000.0,"big":12345678901234567890,"enqueued_at":1700000000.5}';
    await pushRaw(t, raw);
    const { raw: filed } = await onlyEntry(t, t.keys.retry('default'));
    for (const part of [
      '"custom":{"a":[1,2]}',
      '"created_at":1700000000.0',
      '"big":12345678901234567890',
      '"enqueued_at":1700000000.5',
      '"args":["x"]',
    ]) {
      expect(filed).to.contain(part);
    }
  });

  it('sets retried_at, keeps failed_at and counts up on a later failure', async () => {
    await t.start();
    await pushRaw(
      t,
      '{"class":"Fail","args":[],"jid":"again","queue":"default","retry":5,"retry_count":2,"failed_at":1700000000.0}',
    );
    const before = nowSeconds();
    const { raw, job, score } = await onlyEntry(t, t.keys.retry('default'));
    expect(job.retry_count).to.equal(3);
    expect(raw).to.contain('"failed_at":1700000000.0');
    expect(job.retried_at).to.be.at.least(before);
    expectRetryScore(score, 3, before, nowSeconds());
  });

  it('moves a job with retry: 0 to the dead set on its first failure', async () => {
    const node = await t.start();
    const jid = await node.enqueue('default', 'Fail', [], { retry: 0 });
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid, error_class: 'BoomError', retry_count: 1 });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('moves a job that has used all its retries to the dead set', async () => {
    await t.start();
    await pushRaw(t, '{"class":"Fail","args":[],"jid":"spent","queue":"default","retry":2,"retry_count":2}');
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid: 'spent', retry_count: 3 });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('still retries a job that has one retry left', async () => {
    await t.start();
    await pushRaw(t, '{"class":"Fail","args":[],"jid":"one-left","queue":"default","retry":2,"retry_count":1}');
    const { job } = await onlyEntry(t, t.keys.retry('default'));
    expect(job).to.include({ jid: 'one-left', retry_count: 2 });
  });

  it('moves a job with retry: false to the dead set', async () => {
    const node = await t.start();
    const jid = await node.enqueue('default', 'Fail', [], { retry: false });
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid, retry: false, error_class: 'BoomError' });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('runs a retried job again once it is due, and the handler sees its retry count', async () => {
    const out = t.out('failonce');
    const node = await t.start({ nodeId: 'n1' });
    const jid = await node.enqueue('default', 'FailOnce', [t.url, out]);
    const { raw } = await onlyEntry(t, t.keys.retry('default'));
    expect(await t.redis.zadd(t.keys.retry('default'), 'XX', 'CH', 0, raw)).to.equal(1);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ jid, retryCount: 1 });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 2000, 'an empty backup list');
  });
});

describe('failed jobs (sidekiq dialect, namespace "")', () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await (server as RedisServer | undefined)?.stop(); // unset when before failed
  });
  const t = useNodes({ url: () => server.url, namespace: '', flushFirst: true });

  it("writes retry_count 0 on the first failure, under Sidekiq's key names", async () => {
    const node = await t.start({ nodeId: 'sk' });
    const before = nowSeconds();
    const jid = await node.enqueue('default', 'Fail');
    expect(await t.redis.smembers('queues')).to.deep.equal(['default']);
    const { job, score } = await onlyEntry(t, 'retry');
    expect(job).to.include({ jid, retry_count: 0, error_class: 'BoomError' });
    expect(job.failed_at).to.be.a('number');
    expectRetryScore(score, 0, before, nowSeconds());
    await waitFor(async () => (await t.redis.llen('queue:backup::sk::default')) === 0, 2000, 'an empty backup list');
  });

  it('moves a job to dead after retry_count reaches its retry limit', async () => {
    await t.start();
    await pushRaw(t, '{"class":"Fail","args":[],"jid":"sk-spent","queue":"default","retry":2,"retry_count":1}');
    const { job } = await onlyEntry(t, 'dead');
    expect(job).to.include({ jid: 'sk-spent', retry_count: 2 });
    expect(await t.redis.zcard('retry')).to.equal(0);
  });

  it('discards a job with retry: false instead of keeping it anywhere', async () => {
    const out = t.out('after');
    const node = await t.start({ nodeId: 'sk', queues: [{ name: 'default', concurrency: 1 }] });
    await node.enqueue('default', 'Fail', [], { retry: false });
    // With one slot, the next job starts only after the failed one was settled.
    await node.enqueue('default', 'Record', [t.url, out, 'next']);
    await t.waitForRecords(out);
    // The Record job's own ack lands just after its record: wait for it before looking.
    await waitFor(async () => (await t.redis.llen('queue:backup::sk::default')) === 0, 5000, 'the last ack');
    expect(await t.redis.zcard('retry')).to.equal(0);
    expect(await t.redis.zcard('dead')).to.equal(0);
  });
});
