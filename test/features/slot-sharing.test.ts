import { expect } from 'chai';
import { shareSlots } from '../../src/actors/slot-sharing';
import { useNodes, waitFor } from '../support/node';

const queue = (name: string, weight?: number) => ({ name, concurrency: 10, ...(weight ? { weight } : {}) });

describe('sharing free slots between queues', () => {
  it('gives every queue its own free slots when the node has no total cap', () => {
    const shares = shareSlots([queue('a'), queue('b')], (q) => (q.name === 'a' ? 3 : 5), Infinity);
    expect([...shares]).to.deep.equal([['a', 3], ['b', 5]]);
  });

  it('fills queues in order under a total cap (strict priority) when no queue has a weight', () => {
    const shares = shareSlots([queue('a'), queue('b'), queue('c')], () => 4, 6);
    expect([...shares]).to.deep.equal([['a', 4], ['b', 2]]);
  });

  it('samples queues in proportion to their weight, starving none', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const totals = new Map<string, number>();
    for (let poll = 0; poll < 2000; poll++) {
      for (const [name, n] of shareSlots([queue('high', 8), queue('low', 1), queue('mid', 3)], () => 10, 1, random)) {
        totals.set(name, (totals.get(name) ?? 0) + n);
      }
    }
    const share = (name: string) => totals.get(name)! / 2000;
    expect(share('high')).to.be.within(0.6, 0.73); // 8/12
    expect(share('mid')).to.be.within(0.19, 0.31); // 3/12
    expect(share('low')).to.be.within(0.04, 0.13); // 1/12
  });

  describe('on a node', () => {
    const t = useNodes();

    it('never runs more than totalConcurrency jobs at once across its queues', async () => {
      const key = t.out('total');
      const node = await t.start({ queues: [{ name: 'a', concurrency: 5, weight: 2 }, { name: 'b', concurrency: 5, weight: 1 }], totalConcurrency: 2 });
      const jobs = Array.from({ length: 12 }, (_, i) => ({ queue: i % 2 ? 'a' : 'b', class: 'Concurrent', args: [t.url, key, 50] }));
      await node.enqueueAll(jobs);
      await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 12, 10_000, 'all jobs done');
      expect(await t.redis.get(`${key}:max`)).to.equal('2');
    });
  });
});
