// Batches (Sidekiq Pro's): callbacks fired once each, counts, retries, deaths, nesting, and a job
// run twice counted once. In both key layouts (NEXQ_TEST_KEY_LAYOUT=per-queue).
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { defineJob } from '../../src/define-job';
import { deliverCallback, settleMember } from '../../src/redis/batch-scripts';
import { checkSlotsOn, defineScripts } from '../../src/redis/scripts';
import { nowSeconds } from '../../src/job/time';
import { NodeTest, sleep, useNodes, waitFor } from '../support/node';

/** Callbacks that record their args (the last one is `{ bid, event }`) into `key`. */
function callbacks(t: NodeTest, key: string) {
  const cb = (event: string) => ({ queue: 'default', class: 'RecordArgs', args: [t.url, key, event] });
  return { onComplete: cb('complete'), onSuccess: cb('success'), onDeath: cb('death') };
}

/** The events recorded by the callbacks, in the order they ran. */
async function fired(t: NodeTest, key: string): Promise<Array<{ event: string; bid: string }>> {
  return (await t.records(key)).map((r) => r.values[1]);
}

/** Makes every entry of the retry set due now, so the scheduler runs it at once. */
async function retriesDueNow(t: NodeTest): Promise<void> {
  const key = t.keys.retry('default');
  await waitFor(async () => (await t.redis.zcard(key)) > 0, 15_000, 'a retry entry');
  for (const member of await t.redis.zrange(key, 0, -1)) await t.redis.zadd(key, 'XX', 0, member);
}

describe('batches', function () {
  this.timeout(60_000);
  const t = useNodes();

  it('fires onComplete and onSuccess once when every job succeeded, and counts them', async () => {
    const node = await t.start();
    const out = t.out('jobs');
    const cb = t.out('cb');
    const batch = node.batch({ description: 'five', ...callbacks(t, cb) });
    const jids = await batch.enqueueAll(
      [1, 2, 3, 4, 5].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, n] })),
    );
    await t.waitForRecords(cb, 2, 15_000);
    await sleep(200); // time for a wrong third callback to show
    const events = await fired(t, cb);
    expect(events.map((e) => e.event).sort()).to.deep.equal(['complete', 'success']);
    expect(events.every((e) => e.bid === batch.bid)).to.equal(true);
    expect((await t.records(out)).map((r) => r.jid).sort()).to.deep.equal([...jids].sort());
    const status = await batch.status();
    expect(status).to.include({ bid: batch.bid, description: 'five', total: 5, pending: 0, failed: 0, dead: 0 });
    expect(status?.successAt).to.be.a('number');
    expect((await node.batches()).map((b) => b.bid)).to.include(batch.bid);
    // Its data expires (30 days by default) rather than staying for ever.
    expect(await t.redis.ttl(t.keys.batch(batch.bid) as string)).to.be.within(29 * 86400, 30 * 86400);
  });

  it('fires onComplete when the failed jobs wait for a retry, and onSuccess once after the retries succeed', async () => {
    const node = await t.start();
    const out = t.out('jobs');
    const cb = t.out('cb');
    const batch = node.batch(callbacks(t, cb));
    const jobs = [1, 2, 3].map(() => ({ queue: 'default', class: 'FailOnce', args: [t.url, out] }));
    const jids = await batch.enqueueAll(jobs);
    await t.waitForRecords(cb, 1, 15_000);
    expect((await fired(t, cb)).map((e) => e.event)).to.deep.equal(['complete']);
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 3, 15_000, 'three retries');
    const failing = await batch.status();
    expect(failing).to.include({ total: 3, pending: 3, failed: 3, dead: 0 });
    expect([...(failing?.failures ?? [])].sort()).to.deep.equal([...jids].sort());
    await retriesDueNow(t);
    await t.waitForRecords(out, 3, 15_000);
    await t.waitForRecords(cb, 2, 15_000);
    await sleep(200);
    expect((await fired(t, cb)).map((e) => e.event)).to.deep.equal(['complete', 'success']);
    expect(await batch.status()).to.include({ pending: 0, failed: 0 });
  });

  it('fires onDeath once when a job dies, and never onSuccess', async () => {
    const node = await t.start();
    const cb = t.out('cb');
    const batch = node.batch(callbacks(t, cb));
    const [dying] = await batch.enqueueAll([
      { queue: 'default', class: 'Fail', args: ['no'], options: { retry: 0 } },
      { queue: 'default', class: 'Fail', args: ['no again'], options: { retry: 0 } },
      { queue: 'default', class: 'Record', args: [t.url, t.out('jobs'), 1] },
    ]);
    await t.waitForRecords(cb, 2, 15_000);
    await sleep(300);
    expect((await fired(t, cb)).map((e) => e.event).sort()).to.deep.equal(['complete', 'death']);
    const status = await batch.status();
    expect(status).to.include({ total: 3, pending: 2, failed: 2, dead: 2 });
    expect(status?.failures).to.include(dying);
  });

  it('counts a job that runs twice once, and fires each callback once', async () => {
    // The jobs are written while no node runs, then each is pushed a second time: two runs per jid.
    const producer = await t.start({ mode: 'enqueuer' });
    const cb = t.out('cb');
    const out = t.out('jobs');
    const batch = producer.batch(callbacks(t, cb));
    await batch.enqueueAll([1, 2, 3, 4].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, n] })));
    for (const raw of await t.redis.lrange(t.keys.queue('default'), 0, -1))
      await t.redis.lpush(t.keys.queue('default'), raw);
    await t.start();
    await t.waitForRecords(out, 8, 15_000);
    await t.waitForRecords(cb, 2, 15_000);
    await sleep(300);
    expect((await fired(t, cb)).map((e) => e.event).sort()).to.deep.equal(['complete', 'success']);
    expect(await batch.status()).to.include({ total: 4, pending: 0 });
  });

  it('pushes callbacks a settle step left undelivered (a crash between) when the job re-runs, once', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const cb = t.out('cb');
    const batch = producer.batch(callbacks(t, cb));
    const [jid] = await batch.enqueueAll([{ queue: 'default', class: 'Record', args: [t.url, t.out('jobs'), 1] }]);
    // A first run counted the job and made the callbacks due, then its node died before pushing them.
    const scripted = defineScripts(t.redis.duplicate());
    if (t.keys.perQueue) checkSlotsOn(scripted);
    const first = await settleMember(scripted, t.keys, batch.bid, jid, 'success', nowSeconds());
    expect(first?.outbox.map((o) => o.event)).to.deep.equal(['complete', 'success']);
    // It even pushed onComplete, but died before dropping it from the outbox.
    const complete = first?.outbox[0].json as string;
    const parsed = JSON.parse(complete);
    const d = {
      bid: batch.bid,
      event: 'complete' as const,
      queue: 'default',
      jid: parsed.jid,
      json: complete,
      ttl: 60,
    };
    expect(await deliverCallback(scripted, t.keys, d)).to.equal(true);
    await t.redis.hset(t.keys.batch(batch.bid) as string, 'out:complete', complete);
    scripted.disconnect();
    // The job, still in the dead node's backup list, runs again (here: from its queue) on two nodes.
    await Promise.all([t.start(), t.start()]);
    await t.waitForRecords(cb, 2, 15_000);
    await sleep(300);
    expect((await fired(t, cb)).map((e) => e.event).sort()).to.deep.equal(['complete', 'success']);
    expect(await t.redis.hget(t.keys.batch(batch.bid) as string, 'out:success')).to.equal(null);
  });

  it('does not complete while its producer still adds jobs in jobs()', async () => {
    const node = await t.start();
    const cb = t.out('cb');
    const out = t.out('jobs');
    const batch = node.batch(callbacks(t, cb));
    await batch.jobs(async () => {
      await batch.enqueue('default', 'Record', [t.url, out, 1]);
      await t.waitForRecords(out, 1, 15_000); // the first job ran before the second was added
      await sleep(100);
      expect(await t.redis.llen(cb)).to.equal(0);
      await batch.enqueue('default', 'Record', [t.url, out, 2]);
    });
    await t.waitForRecords(cb, 2, 15_000);
    expect(await batch.status()).to.include({ total: 2, pending: 0 });
  });

  it('counts the jobs a handler adds to its own batch with this.batch before the batch can complete', async () => {
    const node = await t.start();
    const cb = t.out('cb');
    const out = t.out('jobs');
    const batch = node.batch(callbacks(t, cb));
    await batch.enqueue('default', 'FanOut', [t.url, out, 3, 300]);
    await t.waitForRecords(cb, 2, 15_000);
    // The callbacks ran after the three jobs the handler added, each counted in the batch.
    expect(await t.redis.llen(out)).to.equal(3);
    expect((await fired(t, cb)).map((e) => e.event).sort()).to.deep.equal(['complete', 'success']);
    expect(await batch.status()).to.include({ total: 4, pending: 0 });
  });

  it('completes a parent only after its child batch, and succeeds it only once the child succeeds', async () => {
    const node: Nexq = await t.start();
    const parentCb = t.out('parent-cb');
    const childCb = t.out('child-cb');
    const out = t.out('jobs');
    const parent = node.batch(callbacks(t, parentCb));
    const child = parent.child(callbacks(t, childCb));
    await parent.jobs(async () => {
      await parent.enqueue('default', 'Record', [t.url, out, 'parent']);
      await child.enqueueAll([{ queue: 'default', class: 'FailOnce', args: [t.url, out] }]);
    });
    // The child's job failed once: the child and then the parent are complete, neither succeeded.
    await t.waitForRecords(parentCb, 1, 15_000);
    expect((await fired(t, childCb)).map((e) => e.event)).to.deep.equal(['complete']);
    expect((await fired(t, parentCb)).map((e) => e.event)).to.deep.equal(['complete']);
    expect(await parent.status()).to.include({ total: 1, children: 1, pending: 1, failed: 1 });
    await retriesDueNow(t);
    await t.waitForRecords(parentCb, 2, 15_000);
    await sleep(200);
    expect((await fired(t, childCb)).map((e) => e.event)).to.deep.equal(['complete', 'success']);
    expect((await fired(t, parentCb)).map((e) => e.event)).to.deep.equal(['complete', 'success']);
    const [p, c] = [await parent.status(), await child.status()];
    expect(c?.parent).to.equal(parent.bid);
    expect(c?.successAt).to.be.at.most(p?.successAt as number);
  });
  it('takes typed jobs of a definition: enqueue, enqueueIn and job() join the batch', async () => {
    const node = await t.start();
    const out = t.out('jobs');
    const RecordJob = defineJob<[url: string, key: string, n: number]>('Record');
    const batch = node.batch({ description: 'typed' });
    const [now, later, ...more] = await batch.jobs(async () => [
      await RecordJob.enqueue(batch, [t.url, out, 1]),
      await RecordJob.enqueueIn(batch, 3600, [t.url, out, 2]),
      ...(await batch.enqueueAll([RecordJob.job([t.url, out, 3])])),
    ]);
    await t.waitForRecords(out, 2, 15_000);
    expect((await t.records(out)).map((r) => r.jid).sort()).to.deep.equal([now, ...more].sort());
    const [scheduled] = await t.redis.zrange(t.keys.schedule('default'), 0, -1);
    expect(JSON.parse(scheduled)).to.include({ jid: later, bid: batch.bid, class: 'Record' });
    // A handler's record lands before its job is settled (and leaves the batch's pending set).
    await waitFor(async () => (await batch.status())?.pending === 1, 15_000, 'the two run jobs settled');
    expect(await batch.status()).to.include({ total: 3, pending: 1 });
  });
});
