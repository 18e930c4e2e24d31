import { expect } from 'chai';
import { fetchOrder } from '../../src/fetch/queue-order';
import { useNodes, waitFor } from '../support/node';

const queue = (name: string, weight?: number) => ({ name, concurrency: 10, ...(weight ? { weight } : {}) });

describe('the order of the queues under a node-wide cap', () => {
  it('is the queue order (strict priority) when no queue has a weight', () => {
    expect(fetchOrder([queue('a'), queue('b'), queue('c')]).map((q) => q.name)).to.deep.equal(['a', 'b', 'c']);
  });

  it('puts each queue first in proportion to its weight, starving none, and keeps every queue in the order', () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const first = new Map<string, number>();
    for (let poll = 0; poll < 2000; poll++) {
      const order = fetchOrder([queue('high', 8), queue('low', 1), queue('mid', 3)], random).map((q) => q.name);
      expect([...order].sort()).to.deep.equal(['high', 'low', 'mid']);
      first.set(order[0], (first.get(order[0]) ?? 0) + 1);
    }
    const share = (name: string) => first.get(name)! / 2000;
    expect(share('high')).to.be.within(0.6, 0.73); // 8/12
    expect(share('mid')).to.be.within(0.19, 0.31); // 3/12
    expect(share('low')).to.be.within(0.04, 0.13); // 1/12
  });

  describe('on a node', () => {
    const t = useNodes();

    it('never runs more than totalConcurrency jobs at once across its queues', async () => {
      const key = t.out('total');
      const node = await t.start({
        queues: [
          { name: 'a', concurrency: 5, weight: 2 },
          { name: 'b', concurrency: 5, weight: 1 },
        ],
        totalConcurrency: 2,
      });
      const jobs = Array.from({ length: 12 }, (_, i) => ({
        queue: i % 2 ? 'a' : 'b',
        class: 'Concurrent',
        args: [t.url, key, 50],
      }));
      await node.enqueueAll(jobs);
      await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 12, 10_000, 'all jobs done');
      expect(await t.redis.get(`${key}:max`)).to.equal('2');
    });

    it('gives the cap to a queue behind an empty one (strict order)', async () => {
      const node = await t.start({
        queues: [
          { name: 'a', concurrency: 5 },
          { name: 'b', concurrency: 5 },
        ],
        totalConcurrency: 1,
      });
      await node.enqueue('b', 'Record', [t.url, t.out('b'), 1]);
      await t.waitForRecords(t.out('b'), 1);
    });

    it('runs a plain queue behind a queue held at its limit across nodes, under a cap', async () => {
      const node = await t.start({
        queues: [
          { name: 'a', concurrency: 5, globalConcurrency: 1 },
          { name: 'b', concurrency: 5 },
        ],
        totalConcurrency: 1,
      });
      await t.redis.hset(t.keys.running('a'), 'other-node', '1');
      await node.enqueue('a', 'Record', [t.url, t.out('a'), 1]);
      await node.enqueue('b', 'Record', [t.url, t.out('b'), 1]);
      await t.waitForRecords(t.out('b'), 1);
      expect(await t.redis.llen(t.keys.queue('a'))).to.equal(1);
    });
  });
});
