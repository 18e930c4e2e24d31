// The core lifecycle on one node: fetch order, slots, and jobs cut off by a stop or a crash.
import { expect } from 'chai';
import { TEST_KEY_LAYOUT, useNodes, waitFor } from '../support/node';

describe('job lifecycle on one node', () => {
  const t = useNodes();

  const recordJob = (out: string, value: unknown, sleepMs = 0) => ({
    queue: 'default',
    class: 'Record',
    args: [t.url, out, value, sleepMs],
  });

  it('runs the jobs of a queue in the order they were enqueued when concurrency is 1', async () => {
    const out = t.out('fifo');
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueAll([1, 2, 3, 4, 5, 6].map((n) => recordJob(out, n)));
    await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    await waitFor(async () => (await t.redis.llen(out)) === 6, 5000, 'six records');
    expect((await t.records(out)).map((r) => r.value)).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });

  it('removes a finished job from the backup list and the queue', async () => {
    const out = t.out('ack');
    const node = await t.start({ nodeId: 'acker' });
    await node.enqueue('default', 'Record', [t.url, out, 'x']);
    await waitFor(() => t.redis.llen(out), 5000, 'the record');
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup('acker', 'default'))) === 0,
      2000,
      'an empty backup list',
    );
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
  });

  it('never runs more jobs of a queue at once than its concurrency, and fills every slot', async () => {
    const key = t.out('conc');
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueAll(
      Array.from({ length: 12 }, () => ({ queue: 'default', class: 'Concurrent', args: [t.url, key, 150] })),
    );
    await t.start({ queues: [{ name: 'default', concurrency: 3 }] });
    await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 12, 8000, 'twelve jobs done');
    expect(await t.redis.get(`${key}:max`)).to.equal('3');
    expect(await t.redis.get(`${key}:running`)).to.equal('0');
  });

  it('respects each queue its own concurrency when two queues run at once', async () => {
    const keyA = t.out('a');
    const keyB = t.out('b');
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueAll([
      ...Array.from({ length: 8 }, () => ({ queue: 'a', class: 'Concurrent', args: [t.url, keyA, 150] })),
      ...Array.from({ length: 8 }, () => ({ queue: 'b', class: 'Concurrent', args: [t.url, keyB, 150] })),
    ]);
    await t.start({
      queues: [
        { name: 'a', concurrency: 2 },
        { name: 'b', concurrency: 4 },
      ],
    });
    await waitFor(
      async () => (await t.redis.llen(`${keyA}:done`)) === 8 && (await t.redis.llen(`${keyB}:done`)) === 8,
      8000,
      'both queues done',
    );
    expect(await t.redis.get(`${keyA}:max`)).to.equal('2');
    expect(await t.redis.get(`${keyB}:max`)).to.equal('4');
  });

  it('leaves a job still running after shutdownTimeout in the backup list, and the next boot with that nodeId runs it', async () => {
    const out = t.out('cut');
    const backup = t.keys.backup('cutter', 'default');
    const first = await t.start({ nodeId: 'cutter', shutdownTimeout: 200 });
    const jid = await first.enqueue('default', 'Record', [t.url, out, 'late', 1500]);
    await waitFor(() => t.redis.llen(backup), 3000, 'the job to be fetched');
    await t.stop(first);

    const left = await t.redis.lrange(backup, 0, -1);
    expect(left).to.have.length(1);
    expect(JSON.parse(left[0]).jid).to.equal(jid);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);

    await t.start({ nodeId: 'cutter' });
    const [record] = await t.waitForRecords(out, 1, 8000);
    expect(record).to.include({ jid, value: 'late' });
    await waitFor(async () => (await t.redis.llen(backup)) === 0, 2000, 'an empty backup list');
  });

  it('lets a job that finishes within shutdownTimeout complete during stop, and acknowledges it', async () => {
    const out = t.out('drain');
    const backup = t.keys.backup('drainer', 'default');
    const node = await t.start({ nodeId: 'drainer', shutdownTimeout: 5000 });
    await node.enqueue('default', 'Record', [t.url, out, 'drained', 300]);
    await waitFor(() => t.redis.llen(backup), 3000, 'the job to be fetched');
    await t.stop(node);
    expect((await t.records(out)).map((r) => r.value)).to.deep.equal(['drained']);
    expect(await t.redis.llen(backup)).to.equal(0);
  });

  it('re-runs on boot a job left in the backup list of its nodeId by a node that died', async () => {
    const out = t.out('rehydrate');
    const raw = JSON.stringify({
      class: 'Record',
      args: [t.url, out, 'orphan'],
      jid: 'orphan-1',
      queue: 'default',
      retry: true,
    });
    await t.redis.lpush(t.keys.backup('crashed', 'default'), raw);
    await t.start({ nodeId: 'crashed' });
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ jid: 'orphan-1', value: 'orphan' });
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup('crashed', 'default'))) === 0,
      2000,
      'an empty backup list',
    );
  });

  it('puts back on boot the backup lists of queues it does not serve, into their queues', async () => {
    const raw = JSON.stringify({ class: 'Record', args: [], jid: 'elsewhere-1', queue: 'elsewhere' });
    await t.redis.lpush(t.keys.backup('crashed', 'elsewhere'), raw);
    await t.start({ nodeId: 'crashed', queues: ['default'] });
    await waitFor(() => t.redis.llen(t.keys.queue('elsewhere')), 3000, 'the job back in its queue');
    expect(await t.redis.lrange(t.keys.queue('elsewhere'), 0, -1)).to.deep.equal([raw]);
    expect(await t.redis.exists(t.keys.backup('crashed', 'elsewhere'))).to.equal(0);
  });

  it('finds its backup lists on boot when the namespace holds glob characters', async function () {
    if (TEST_KEY_LAYOUT === 'per-queue') this.skip(); // it writes the shared layout's key names itself
    const ns = `${t.ns}[x]`;
    const raw = JSON.stringify({ class: 'Record', args: [], jid: 'glob-1', queue: 'elsewhere' });
    await t.redis.lpush(`${ns}:queue:backup::crashed::elsewhere`, raw);
    await t.start({ namespace: ns, nodeId: 'crashed', queues: ['default'] });
    await waitFor(() => t.redis.llen(`${ns}:queue:elsewhere`), 3000, 'the job back in its queue');
    expect(await t.redis.exists(`${ns}:queue:backup::crashed::elsewhere`)).to.equal(0);
  });

  it('does not take over the backup list of another nodeId', async () => {
    const out = t.out('other');
    const raw = JSON.stringify({ class: 'Record', args: [t.url, out, 'not mine'], jid: 'other-1', queue: 'default' });
    await t.redis.lpush(t.keys.backup('someone-else', 'default'), raw);
    const node = await t.start({ nodeId: 'me' });
    await node.enqueue('default', 'Record', [t.url, out, 'mine']);
    await waitFor(() => t.redis.llen(out), 5000, 'my job');
    expect((await t.records(out)).map((r) => r.value)).to.deep.equal(['mine']);
    expect(await t.redis.lrange(t.keys.backup('someone-else', 'default'), 0, -1)).to.deep.equal([raw]);
  });
});
