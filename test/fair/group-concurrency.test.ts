// groupConcurrency: at most N jobs of one group of a fair queue run at once across all nodes.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

describe('a fair queue with groupConcurrency', () => {
  const t = useNodes();
  const limited = { queues: [{ name: 'default', concurrency: 5, fair: true, groupConcurrency: 2 }] };

  it('never lets a third job of a group run across 3 nodes, and gives every slot back', async function () {
    this.timeout(60_000);
    const out = t.out('groups');
    const groups = ['acme', 'globex', 'initech'];
    const nodes = await Promise.all([t.start(limited), t.start(limited), t.start(limited)]);
    await nodes[0].enqueueAll(
      groups.flatMap((group) =>
        Array.from({ length: 12 }, () => ({
          queue: 'default',
          class: 'Concurrent',
          // Concurrent counts the jobs running at once under its key (here one per group), and the most seen.
          args: [t.url, `${out}:${group}`, 60],
          options: { group },
        })),
      ),
    );
    await waitFor(
      async () => (await Promise.all(groups.map((g) => t.redis.llen(`${out}:${g}:done`)))).every((n) => n === 12),
      40_000,
      'every job done',
    );
    for (const group of groups) expect(await t.redis.get(`${out}:${group}:max`), group).to.equal('2');
    await waitFor(
      async () =>
        (await Promise.all(groups.map((g) => t.redis.exists(t.keys.groupRunning('default', g))))).every((n) => n === 0),
      5000,
      'every group slot given back',
    );
  });

  it('gives back the group slot of a job cut off by a stop, as the job goes back to its queue', async () => {
    const node = await t.start({ ...limited, shutdownTimeout: 50 });
    await node.enqueue('default', 'Sleep', [10_000], { group: 'acme' });
    const slot = t.keys.groupRunning('default', 'acme');
    await waitFor(async () => (await t.redis.hlen(slot)) === 1, 5000, 'the job running, its group slot held');
    await node.stop();
    expect(await t.redis.llen(t.keys.queue('default')), 'the job back in its queue').to.equal(1);
    expect(await t.redis.hlen(slot), 'no slot left for a node that holds nothing').to.equal(0);
  });

  it("runs another group's jobs while one group is at its limit", async function () {
    this.timeout(30_000);
    const out = t.out('other');
    const node = await t.start(limited);
    const job = (group: string, ms: number) => ({
      queue: 'default',
      class: 'Concurrent',
      args: [t.url, `${out}:${group}`, ms],
      options: { group },
    });
    await node.enqueueAll(Array.from({ length: 8 }, () => job('slow', 1500)));
    await node.enqueueAll(Array.from({ length: 3 }, () => job('quick', 10)));
    await waitFor(async () => (await t.redis.llen(`${out}:quick:done`)) === 3, 10_000, "the quick group's jobs done");
    // The slow group, two at a time, still has jobs waiting behind its limit.
    expect(await t.redis.llen(`${out}:slow:done`)).to.be.below(8);
    expect(await t.redis.hget(t.keys.fair('default').groups, 'slow')).to.not.equal(null);
    expect(await t.redis.get(`${out}:slow:max`)).to.equal('2');
  });

  it("gives back a dead node's group slots when it is recovered, and runs its jobs", async () => {
    const out = t.out('ghost');
    const job = (n: number) =>
      JSON.stringify({ class: 'Record', args: [t.url, out, n], jid: `g${n}`, queue: 'default', group: 'acme' });
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000 - 60), 'ghost');
    await t.redis.rpush(t.keys.backup('ghost', 'default'), job(1), job(2));
    await t.redis.hset(t.keys.groupRunning('default', 'acme'), 'ghost', '2');
    await t.start({ ...limited, heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1 });
    // Both ran: the ghost's two slots, the whole limit, were given back first.
    expect(await t.waitForRecords(out, 2, 10_000)).to.have.length(2);
    expect(await t.redis.hget(t.keys.groupRunning('default', 'acme'), 'ghost')).to.equal(null);
  });

  it('is refused on a queue that is not fair, with a ConfigError naming the option', async () => {
    const err = await t.start({ queues: [{ name: 'default', groupConcurrency: 2 }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.match(/groupConcurrency/);
  });
});
