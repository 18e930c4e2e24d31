// Scheduled jobs: written to the schedule set, moved into their queue when due, bytes untouched.
import { expect } from 'chai';
import { nowSeconds } from '../../src/job/time';
import { sleep, useNodes, waitFor } from '../support/node';

/** Redis runs on this machine: its clock and the test's agree to well within this (seconds). */
const CLOCK_SLACK = 0.05;

describe('scheduled jobs', () => {
  const t = useNodes();

  it('keeps a job enqueued in 1 second in the schedule set, then runs it when due', async () => {
    const out = t.out('in');
    const node = await t.start();
    const before = nowSeconds();
    const jid = await node.enqueueIn('default', 1, 'Record', [t.url, out, 'later']);
    const after = nowSeconds();

    const [raw, score] = await t.redis.zrange(t.keys.schedule('default'), 0, -1, 'WITHSCORES');
    expect(JSON.parse(raw).jid).to.equal(jid);
    // By Redis' clock (docs/time.md), which the node reads to within half a round trip of this one.
    expect(Number(score)).to.be.within(before + 1 - CLOCK_SLACK, after + 1 + CLOCK_SLACK);
    expect(await t.redis.llen(out)).to.equal(0);

    const [record] = await t.waitForRecords(out, 1, 5000);
    expect(record).to.include({ jid, value: 'later' });
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
  });

  it('runs a job enqueued at a time already past soon after', async () => {
    const out = t.out('at');
    const node = await t.start();
    const jid = await node.enqueueAt('default', new Date(Date.now() - 60_000), 'Record', [t.url, out, 'overdue']);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ jid, value: 'overdue' });
  });

  it('leaves a job scheduled an hour ahead in the schedule set through several scheduler polls', async () => {
    const node = await t.start({ schedulerPollTimeout: 20 });
    await node.enqueueAt('default', new Date(Date.now() + 3600_000), 'Record', [t.url, t.out('never'), 'x']);
    await sleep(300);
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
  });

  it('moves a due job into the queue its payload names with a new enqueued_at, every other byte kept, and registers that queue', async () => {
    await t.start({ queues: ['default'] });
    const raw =
      '{"class":"Record","args":[],"jid":"s-1","queue":"elsewhere","created_at":1700000000.0,"x":{"y":[1, 2]}}';
    await t.redis.zadd(t.keys.schedule('default'), 1, raw);
    await waitFor(() => t.redis.llen(t.keys.queue('elsewhere')), 3000, 'the job in its queue');
    const [queued] = await t.redis.lrange(t.keys.queue('elsewhere'), 0, -1);
    expect(queued.startsWith(raw.slice(0, -1))).to.equal(true, queued);
    expect(queued.slice(raw.length - 1)).to.match(/^,"enqueued_at":\d+\.\d+\}$/);
    expect(await t.redis.sismember(t.keys.queues, 'elsewhere')).to.equal(1);
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
  });

  it('moves due jobs out of the retry set the same way', async () => {
    await t.start({ queues: ['default'] });
    const raw = '{"class":"Record","args":[],"jid":"r-1","queue":"parked","retry_count":1}';
    await t.redis.zadd(t.keys.retry('default'), 1, raw);
    await waitFor(() => t.redis.llen(t.keys.queue('parked')), 3000, 'the job in its queue');
    const [queued] = await t.redis.lrange(t.keys.queue('parked'), 0, -1);
    expect(queued.startsWith(raw.slice(0, -1))).to.equal(true, queued);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('moves more due jobs than one batch holds', async () => {
    await t.start({ queues: ['default'] });
    const entries: Array<number | string> = [];
    for (let i = 0; i < 250; i++)
      entries.push(1, JSON.stringify({ class: 'Record', args: [], jid: `b-${i}`, queue: 'bulk' }));
    await t.redis.zadd(t.keys.schedule('default'), ...entries);
    await waitFor(async () => (await t.redis.llen(t.keys.queue('bulk'))) === 250, 5000, 'all 250 jobs in their queue');
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
  });
});
