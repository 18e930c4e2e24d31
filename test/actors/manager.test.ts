// Queues subscribed and unsubscribed while the node runs.
import { expect } from 'chai';
import { ConfigError } from '../../config/validate';
import { sleep, useNodes, waitFor } from '../support/node';

/** Several poll intervals at pollTimeout 20: long enough for a subscribed queue to be fetched. */
const SEVERAL_POLLS_MS = 300;

describe('runtime subscriptions', () => {
  const t = useNodes();

  it('does not run jobs of a queue the node does not serve', async () => {
    const out = t.out('b');
    const node = await t.start({ queues: ['a'] });
    await node.enqueue('b', 'Record', [t.url, out, 'b1']);
    await sleep(SEVERAL_POLLS_MS);
    expect(await t.redis.llen(t.keys.queue('b'))).to.equal(1);
    expect(await t.redis.llen(out)).to.equal(0);
  });

  it('runs jobs of a queue once it is subscribed', async () => {
    const out = t.out('b');
    const node = await t.start({ queues: ['a'] });
    const jid = await node.enqueue('b', 'Record', [t.url, out, 'b1']);
    await node.subscribe('b');
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ jid, queue: 'b' });
  });

  it('lists the queues it serves with their concurrency', async () => {
    const node = await t.start({ queues: ['a'], concurrency: 2 });
    await node.subscribe('b', 5);
    await node.subscribe('c');
    expect(await node.subscriptions()).to.deep.equal([
      { name: 'a', concurrency: 2 },
      { name: 'b', concurrency: 5 },
      { name: 'c', concurrency: 2 },
    ]);
  });

  it('changes the concurrency of a queue subscribed again', async () => {
    const node = await t.start({ queues: ['a'], concurrency: 2 });
    await node.subscribe('a', 7);
    expect(await node.subscriptions()).to.deep.equal([{ name: 'a', concurrency: 7 }]);
  });

  it('stops fetching from a queue once it is unsubscribed', async () => {
    const out = t.out('a');
    const node = await t.start({ queues: ['a', 'b'] });
    await node.unsubscribe('a');
    expect(await node.subscriptions()).to.deep.equal([{ name: 'b', concurrency: 10 }]);
    await node.enqueue('a', 'Record', [t.url, out, 'a1']);
    await sleep(SEVERAL_POLLS_MS);
    expect(await t.redis.llen(t.keys.queue('a'))).to.equal(1);
    expect(await t.redis.llen(out)).to.equal(0);
  });

  it('serves no queue after unsubscribeAll, and leaves new jobs queued', async () => {
    const node = await t.start({ queues: ['a', 'b'] });
    await node.unsubscribeAll();
    expect(await node.subscriptions()).to.deep.equal([]);
    await node.enqueue('a', 'Record', [t.url, t.out('a'), 'a1']);
    await node.enqueue('b', 'Record', [t.url, t.out('b'), 'b1']);
    await sleep(SEVERAL_POLLS_MS);
    expect(await t.redis.llen(t.keys.queue('a'))).to.equal(1);
    expect(await t.redis.llen(t.keys.queue('b'))).to.equal(1);
  });

  it('lets a job already running in a queue finish after that queue is unsubscribed', async () => {
    const out = t.out('a');
    const node = await t.start({ queues: ['a'], nodeId: 'unsub' });
    await node.enqueue('a', 'Record', [t.url, out, 'slow', 400]);
    await waitFor(() => t.redis.llen(t.keys.backup('unsub', 'a')), 3000, 'the job to be fetched');
    await node.unsubscribe('a');
    const [record] = await t.waitForRecords(out);
    expect(record.value).to.equal('slow');
  });

  it('rejects subscribing a bad queue name with a ConfigError and keeps its subscriptions', async () => {
    const node = await t.start({ queues: ['a'] });
    await node.subscribe('b');
    const err = await node.subscribe('no spaces allowed').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ConfigError);
    expect(await node.subscriptions()).to.deep.equal([
      { name: 'a', concurrency: 10 },
      { name: 'b', concurrency: 10 },
    ]);
  });
});
