import { expect } from 'chai';
import { TEST_KEY_LAYOUT, useNodes, waitFor } from '../support/node';

describe('a class limit across all nodes', () => {
  before(function () {
    // Refused in that layout (test/config/redis-option.test.ts): a limit across queues needs one slot.
    if (TEST_KEY_LAYOUT === 'per-queue') this.skip();
  });
  const t = useNodes();
  const limited = { concurrency: 5, classConcurrency: { Concurrent: 2 } };

  it('holds two nodes of 5 slots each to 2 running jobs of the class together', async () => {
    const key = t.out('class');
    const a = await t.start(limited);
    await t.start(limited);
    await a.enqueueAll(
      Array.from({ length: 10 }, () => ({ queue: 'default', class: 'Concurrent', args: [t.url, key, 60] })),
    );
    await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 10, 15_000, 'all jobs done');
    expect(await t.redis.get(`${key}:max`)).to.equal('2');
    await waitFor(
      async () => (await t.redis.hlen(t.keys.classRunning('Concurrent'))) === 0,
      5000,
      'every class slot given back',
    );
  });

  it('lets jobs of other classes behind a class at its limit go first, and keeps the waiting jobs in order', async () => {
    const key = t.out('order');
    const node = await t.start({ concurrency: 5, classConcurrency: { Concurrent: 1 } });
    await node.pause('default', 'out');
    const limitedJids = await node.enqueueAll(
      Array.from({ length: 4 }, () => ({ queue: 'default', class: 'Concurrent', args: [t.url, key, 300] })),
    );
    await node.enqueueAll(
      Array.from({ length: 3 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('others'), i] })),
    );
    await node.resume('default');
    await t.waitForRecords(t.out('others'), 3, 10_000);
    // The three Record jobs were enqueued after all four limited ones, yet ran while those waited.
    expect(await t.redis.llen(`${key}:done`)).to.be.lessThan(4);
    await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 4, 15_000, 'the limited jobs done');
    expect(await t.redis.lrange(`${key}:done`, 0, -1)).to.deep.equal(limitedJids);
    expect(await t.redis.get(`${key}:max`)).to.equal('1');
  });

  it("gives back a dead node's class slots when it is recovered, and a stopping node's own", async () => {
    const job = (n: number) =>
      JSON.stringify({ class: 'Concurrent', args: [t.url, t.out('rep'), 1], jid: `c${n}`, queue: 'default' });
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000 - 60), 'ghost');
    await t.redis.rpush(t.keys.backup('ghost', 'default'), job(1), job(2));
    await t.redis.hset(t.keys.classRunning('Concurrent'), 'ghost', '2');
    const node = await t.start({ ...limited, heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1 });
    await waitFor(async () => (await t.redis.llen(`${t.out('rep')}:done`)) === 2, 10_000, 'the recovered jobs done');
    expect(await t.redis.hget(t.keys.classRunning('Concurrent'), 'ghost')).to.equal(null);

    // A job cut off by a stop goes back to its queue with its class slot.
    await node.enqueue('default', 'Concurrent', [t.url, t.out('cut'), 60_000]);
    const nodeId = node.node.ctx.config.nodeId;
    await waitFor(
      async () => (await t.redis.hget(t.keys.classRunning('Concurrent'), nodeId)) === '1',
      5000,
      'a class slot taken',
    );
    await t.stop(node);
    expect(await t.redis.hget(t.keys.classRunning('Concurrent'), nodeId)).to.equal(null);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
  });

  it('rejects a bad limit with a ConfigError naming the class', async () => {
    const err = await t.start({ classConcurrency: { Mailer: 0 } }).catch((e: unknown) => e);
    expect((err as Error).message).to.contain('classConcurrency.Mailer');
  });
});
