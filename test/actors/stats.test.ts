// What a node tells dashboards: the processed/failed counters and its entry in the process list.
import { expect } from 'chai';
import { statDay } from '../../src/redis/keys';
import { BUCKETS_MS, minuteOf, RETENTION_SECONDS } from '../../src/redis/class-metrics';
import { NodeTest, useNodes, waitFor } from '../support/node';

async function processEntry(t: NodeTest, identity: string): Promise<Record<string, string>> {
  return t.redis.hgetall(t.keys.process(identity));
}

describe('stats and the process entry', () => {
  const t = useNodes();

  it('counts every run as processed and each failure as failed, in total and per UTC day', async () => {
    const out = t.out('ok');
    const node = await t.start();
    await node.enqueueAll([
      ...[1, 2, 3].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, n] })),
      ...[1, 2].map(() => ({ queue: 'default', class: 'Fail', args: [] })),
    ]);
    const day = statDay();
    await waitFor(async () => (await t.redis.get(t.keys.stat('processed'))) === '5', 5000, 'five processed');
    await waitFor(async () => (await t.redis.get(t.keys.stat('failed'))) === '2', 5000, 'two failed');
    expect(day).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(await t.redis.get(t.keys.stat('processed', day))).to.equal('5');
    expect(await t.redis.get(t.keys.stat('failed', day))).to.equal('2');
  });

  it("adds per-class counts, run time and a run-time histogram to the minute's hash, which expires", async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 4 }] });
    const before = minuteOf(node.node.ctx.clock.now());
    await node.enqueueAll([
      ...[1, 2, 3].map(() => ({ queue: 'default', class: 'Sleep', args: [60] })),
      ...[1, 2].map(() => ({ queue: 'default', class: 'Fail', args: [] })),
      { queue: 'default', class: 'NoSuchHandler', args: [] },
    ]);
    await waitFor(async () => (await t.redis.get(t.keys.stat('processed'))) === '6', 5000, 'six processed');
    // The scripts that settled them counted the queue's jobs, failures included, for `nexq drain`.
    expect(await t.redis.get(t.keys.processed('default'))).to.equal('6');
    const after = minuteOf(node.node.ctx.clock.now());
    const minutes = [...new Set([before, after])];
    const hashes = await Promise.all(minutes.map((m) => t.redis.hgetall(t.keys.classMetrics(m))));
    const sum = (field: string) => hashes.reduce((n, h) => n + Number(h[field] ?? 0), 0);
    expect(sum('Sleep|p')).to.equal(3);
    expect(sum('Sleep|f')).to.equal(0);
    expect(sum('Sleep|ms')).to.be.at.least(3 * 60);
    // Each 60 ms run is in a bucket above 50 ms.
    const over50 = BUCKETS_MS.map((_, i) => i).filter((i) => i > 0 && BUCKETS_MS[i - 1] >= 50);
    expect(over50.reduce((n, i) => n + sum(`Sleep|h${i}`), 0) + sum(`Sleep|h${BUCKETS_MS.length}`)).to.equal(3);
    expect(sum('Fail|p')).to.equal(2);
    expect(sum('Fail|f')).to.equal(2);
    // A class without a handler counts under one name, so payloads cannot add fields at will.
    expect(sum('(unknown)|p')).to.equal(1);
    expect(hashes.some((h) => Object.keys(h).some((f) => f.startsWith('NoSuchHandler')))).to.equal(false);
    for (const m of minutes) {
      const ttl = await t.redis.ttl(t.keys.classMetrics(m));
      if (ttl !== -2) expect(ttl).to.be.within(1, RETENTION_SECONDS);
    }
    // Each queue's count of the minute (its recent rate, for nexq.position), expiring likewise.
    const perQueue = await Promise.all(minutes.map((m) => t.redis.hgetall(t.keys.queueMetrics(m))));
    const fields = perQueue.flatMap((h) => Object.entries(h));
    expect(fields.reduce((n, [, count]) => n + Number(count), 0)).to.equal(6);
    expect(new Set(fields.map(([queue]) => queue))).to.deep.equal(new Set(['default']));
    for (const m of minutes) {
      const ttl = await t.redis.ttl(t.keys.queueMetrics(m));
      if (ttl !== -2) expect(ttl).to.be.within(1, RETENTION_SECONDS);
    }
  });

  it('flushes the last counts when the node stops', async () => {
    const out = t.out('ok');
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    await node.enqueue('default', 'Record', [t.url, out, 1]);
    await t.waitForRecords(out);
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0, 2000, 'an empty queue');
    await t.stop(node);
    expect(await t.redis.get(t.keys.stat('processed'))).to.equal('1');
  });

  it('publishes its identity, info, busy count and running jobs while a job runs', async () => {
    const node = await t.start({
      heartbeatInterval: 1,
      queues: [
        { name: 'default', concurrency: 3 },
        { name: 'low', concurrency: 2 },
      ],
    });
    const identity = node.node.ctx.identity;
    const jid = await node.enqueue('default', 'Record', [t.url, t.out('slow'), 'slow', 2500]);

    await waitFor(async () => (await processEntry(t, identity)).busy === '1', 3000, 'busy 1 in the process entry');
    expect(await t.redis.smembers(t.keys.processes)).to.deep.equal([identity]);
    const entry = await processEntry(t, identity);
    const info = JSON.parse(entry.info);
    expect(info).to.include({ identity, concurrency: 5, pid: process.pid, node_id: node.node.ctx.config.nodeId });
    expect(info.queues).to.deep.equal(['default', 'low']);
    expect(entry.quiet).to.equal('false');
    expect(Number(entry.beat)).to.be.greaterThan(0);
    expect(await t.redis.ttl(t.keys.process(identity))).to.be.within(1, 60);

    const workers = await t.redis.hgetall(t.keys.processWorkers(identity));
    expect(Object.keys(workers)).to.deep.equal([jid]);
    const work = JSON.parse(workers[jid]);
    expect(work.queue).to.equal('default');
    // Sidekiq 6.4+ keeps the payload as a JSON string inside the entry; older ones as an object.
    const payload = typeof work.payload === 'string' ? JSON.parse(work.payload) : work.payload;
    expect(payload.jid).to.equal(jid);
    expect(work.run_at).to.be.a('number');
  });

  it('shows queues subscribed at run time in its info', async () => {
    const node = await t.start({ heartbeatInterval: 1, queues: ['a'], concurrency: 2 });
    const identity = node.node.ctx.identity;
    await node.subscribe('b', 4);
    const info = await waitFor(
      async () => {
        const raw = (await processEntry(t, identity)).info;
        const parsed = raw && JSON.parse(raw);
        return parsed && parsed.queues.length === 2 ? parsed : undefined;
      },
      3000,
      'queue b in the info',
    );
    expect(info.queues).to.deep.equal(['a', 'b']);
    expect(info.concurrency).to.equal(6);
  });

  it('removes its process entry when it stops', async () => {
    const node = await t.start({ shutdownTimeout: 100, heartbeatInterval: 1 });
    const identity = node.node.ctx.identity;
    await node.enqueue('default', 'Record', [t.url, t.out('slow'), 'slow', 2000]);
    await waitFor(() => t.redis.exists(t.keys.processWorkers(identity)), 3000, 'the running job in the process entry');
    await t.stop(node);
    expect(await t.redis.sismember(t.keys.processes, identity)).to.equal(0);
    expect(await t.redis.exists(t.keys.process(identity), t.keys.processWorkers(identity))).to.equal(0);
  });
});
