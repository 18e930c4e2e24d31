// A fair queue (`fair: true`) serves its jobs' groups in turn.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

const fairQueue = (concurrency: number) => ({ queues: [{ name: 'default', concurrency, fair: true }] });

describe('a fair queue', () => {
  const t = useNodes();

  it("starts every small group's last job before the big group's 1,000th, though the big one came first", async function () {
    this.timeout(120_000);
    const out = t.out('shape');
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const job = (group: string) => ({
      queue: 'default',
      class: 'Record',
      args: [t.url, out, group],
      options: { group },
    });
    await enqueuer.enqueueAll(Array.from({ length: 10_000 }, () => job('big')));
    const small = Array.from({ length: 50 }, (_, g) => `small-${g}`);
    await enqueuer.enqueueAll(small.flatMap((group) => Array.from({ length: 10 }, () => job(group))));
    // Threads 1: the records' order is the order the jobs started in, give or take a slot.
    await t.start({ ...fairQueue(10), threads: 1 });
    await waitFor(async () => (await t.redis.llen(out)) >= 1500, 100_000, '1,500 jobs done');
    const order = (await t.records(out)).map((r: { value: string }) => r.value);
    const thousandth = nthIndex(order, 'big', 1000);
    expect(thousandth, "the big group's 1,000th job").to.be.greaterThan(0);
    for (const group of small) {
      expect(order.lastIndexOf(group), group).to.be.within(0, thousandth);
      expect(order.filter((g) => g === group)).to.have.length(10);
    }
  });

  it('serves by group the jobs a Sidekiq or Exq producer pushed with a top-level "group" field', async () => {
    const out = t.out('raw');
    const raw = (group: string | undefined, n: number) =>
      JSON.stringify({
        class: 'Record',
        args: [t.url, out, `${group ?? 'none'}-${n}`],
        jid: `${group ?? 'none'}-${n}`,
        queue: 'default',
        retry: true,
        ...(group === undefined ? {} : { group }),
        enqueued_at: Date.now() / 1000,
      });
    // LPUSH as Sidekiq does: the oldest at the right. 20 of acme, then 2 of globex, 2 with no group.
    for (let n = 0; n < 20; n++) await t.redis.lpush(t.keys.queue('default'), raw('acme', n));
    for (let n = 0; n < 2; n++) await t.redis.lpush(t.keys.queue('default'), raw('globex', n));
    for (let n = 0; n < 2; n++) await t.redis.lpush(t.keys.queue('default'), raw(undefined, n));
    await t.start({ ...fairQueue(1), threads: 1 });
    const order = (await t.waitForRecords(out, 24, 15_000)).map((r: { value: string }) => r.value);
    // Turns: acme, globex, the default group, acme, globex, the default group, then acme alone.
    expect(order.slice(0, 6)).to.deep.equal(['acme-0', 'globex-0', 'none-0', 'acme-1', 'globex-1', 'none-1']);
    expect(order.slice(6)).to.deep.equal(Array.from({ length: 18 }, (_, n) => `acme-${n + 2}`));
    // Nothing left behind in the fair queue's keys.
    const fair = t.keys.fair('default');
    expect(await t.redis.exists(fair.jobs, fair.groups, fair.ring, t.keys.queue('default'))).to.equal(0);
  });

  it("keeps a job's group when it is retried", async () => {
    const node = await t.start({ ...fairQueue(2), maxRetries: 3 });
    await node.enqueue('default', 'Fail', [], { group: 'tenant-7' });
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 1, 8000, 'a retry');
    const [retried] = await t.redis.zrange(t.keys.retry('default'), 0, -1);
    expect(JSON.parse(retried).group).to.equal('tenant-7');
  });
});

function nthIndex<T>(items: T[], item: T, n: number): number {
  let seen = 0;
  for (let i = 0; i < items.length; i++) if (items[i] === item && ++seen === n) return i;
  return -1;
}
