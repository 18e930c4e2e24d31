// Disque's job options and queue pausing, and drain.
import { expect } from 'chai';
import { QueueFullError, QueuePausedError } from '../../src/redis/enqueue-scripts';
import { useNodes, waitFor, sleep } from '../support/node';

describe('pausing queues across nodes', () => {
  const t = useNodes();

  it('refuses enqueues into a queue paused for input, with a clear error, and takes them after resume', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.pause('mail', 'in');
    const refused = await node.enqueue('mail', 'Record', []).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(QueuePausedError);
    expect((refused as Error).message).to.equal('enqueue refused: queue mail is paused for input');
    expect(await node.paused()).to.deep.equal({ mail: 'in' });
    await node.resume('mail');
    await node.enqueue('mail', 'Record', []);
    expect(await t.redis.llen(t.keys.queue('mail'))).to.equal(1);
  });

  it('refuses a whole enqueueAll when one of its queues is paused', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.pause('b', 'all');
    await node
      .enqueueAll([
        { queue: 'a', class: 'X', args: [] },
        { queue: 'b', class: 'X', args: [] },
      ])
      .catch(() => {});
    expect(await t.redis.llen(t.keys.queue('a'))).to.equal(0);
  });

  it('stops every node fetching from a queue paused for output, and resumes them all', async () => {
    const a = await t.start();
    await t.start();
    await a.pause('default', 'out');
    await a.enqueue('default', 'Record', [t.url, t.out('p'), 1]);
    await sleep(300); // many poll intervals of both nodes
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    await a.resume('default');
    await t.waitForRecords(t.out('p'));
  });

  it("holds a paused queue that is not the first of a node's queues, while the others run", async () => {
    // One fetch call reads every queue's pause state: each must be read under its own name.
    const node = await t.start({ queues: ['first', 'second', 'third'] });
    await node.pause('third', 'out');
    await node.enqueue('third', 'Record', [t.url, t.out('held'), 3]);
    await node.enqueue('second', 'Record', [t.url, t.out('ran'), 2]);
    await t.waitForRecords(t.out('ran'));
    await sleep(300); // many poll intervals
    expect(await t.redis.llen(t.keys.queue('third'))).to.equal(1);
    await node.resume('third');
    await t.waitForRecords(t.out('held'));
  });
});

describe("Disque's job options", () => {
  const t = useNodes();

  it('buries a job not started before its ttl as expired', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueue('default', 'Record', [t.url, t.out('ttl'), 1], { ttl: 0.2 });
    await sleep(400);
    await t.start();
    const [entry] = await waitFor(
      async () => {
        const d = await t.redis.zrange(t.keys.dead('default'), 0, -1);
        return d.length > 0 && d;
      },
      5000,
      'the expired job in dead',
    );
    expect(JSON.parse(entry)).to.include({ error_message: 'expired', error_class: 'JobExpiredError' });
    expect(await t.redis.llen(t.out('ttl'))).to.equal(0);
  });

  it('delays a job by `delay` seconds through the schedule', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Record', [t.url, t.out('delay'), 1], { delay: 1 });
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(1);
    await t.waitForRecords(t.out('delay'), 1, 5000);
  });

  it('refuses an enqueue past maxlen with QueueFullError', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.enqueue('default', 'X', [], { maxlen: 2 });
    await node.enqueue('default', 'X', [], { maxlen: 2 });
    const refused = await node.enqueue('default', 'X', [], { maxlen: 2 }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(QueueFullError);
    expect((refused as Error).message).to.include('queue default already holds 2 job(s)');
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(2);
  });

  it('never retries an at-most-once job: a failure goes to dead', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Fail', [], { atMostOnce: true });
    await waitFor(() => t.redis.zcard(t.keys.dead('default')), 5000, 'the failure in dead');
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('never re-runs an at-most-once job cut off by a stop', async () => {
    const node = await t.start({ nodeId: 'amo', shutdownTimeout: 100 });
    await node.enqueue('default', 'Record', [t.url, t.out('amo'), 1, 2000], { atMostOnce: true });
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0, 5000, 'the job taken');
    await sleep(100);
    await t.stop(node);
    expect(await t.redis.llen(t.keys.backup('amo', 'default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
  });

  it('puts a nacked job back in its queue with its nacks counted, until the handler takes it', async () => {
    await t.start();
    const producer = await t.start({ mode: 'enqueuer' });
    const jid = await producer.enqueue('default', 'Nack', [t.url, t.out('nack'), 3]);
    const [record] = await t.waitForRecords(t.out('nack'), 1, 8000);
    expect(record).to.deep.equal({ jid, nacks: 3 });
  });
});

describe('drain', () => {
  const t = useNodes();

  it('resolves once the subscribed queues are empty and nothing runs', async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 3 }] });
    await node.enqueueAll(
      Array.from({ length: 15 }, (_, i) => ({
        queue: 'default',
        class: 'Record',
        args: [t.url, t.out('drain'), i, 20],
      })),
    );
    await node.drain();
    expect(await t.redis.llen(t.out('drain'))).to.equal(15);
  });
});
