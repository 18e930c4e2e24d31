// groupRateLimit: each group of a fair queue starts at most `limit` jobs per `per` seconds across all nodes.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

describe('a fair queue with groupRateLimit', () => {
  const t = useNodes();

  it("holds back a group out of room in its own rate, never another group's jobs", async function () {
    this.timeout(30_000);
    const out = t.out('rate');
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 5, fair: true, groupRateLimit: { limit: 1, per: 2 } }],
    });
    const job = (group: string, n: number) => ({
      queue: 'default',
      class: 'Record',
      args: [t.url, out, `${group}-${n}`],
      options: { group },
    });
    await node.enqueueAll(Array.from({ length: 6 }, (_, n) => job('limited', n)));
    await node.enqueueAll(Array.from({ length: 6 }, (_, n) => job('other', n)));
    // Each group has a rate of its own: 'other' starts its first job, not all six, until its window opens.
    await waitFor(async () => (await t.redis.llen(out)) >= 2, 10_000, "each group's first job");
    const firsts = (await t.records(out)).map((r: { value: string }) => r.value).sort();
    expect(firsts).to.deep.equal(['limited-0', 'other-0']);
    expect(
      await t.redis.exists(`${t.keys.fair('default').rate}:limited`, `${t.keys.fair('default').rate}:other`),
    ).to.equal(2);
    // Jobs wait in both groups behind their rates, not run at once.
    expect(await t.redis.zcard(t.keys.fair('default').jobs)).to.be.at.least(8);
  });

  it('is refused on a queue that is not fair, and a bad limit is named', async () => {
    const notFair = await t.start({ queues: [{ name: 'default', groupRateLimit: { limit: 1, per: 1 } }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((notFair as Error).message).to.match(/groupRateLimit/);
    const bad = await t.start({ queues: [{ name: 'default', fair: true, groupRateLimit: { limit: 0, per: 1 } }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((bad as Error).message).to.match(/groupRateLimit\.limit/);
  });
});
