// A node serving several queues runs a busy one as it would run it alone, whatever state the
// others are in, and an idle node starts a job in any of its queues at once (one a foreign producer pushed at the
// idle poll). The poll interval is
// set far beyond each test's deadline, so only the fetch policy's own decisions can get the jobs
// run: before it, each freed slot of a busy queue waited for the next poll when another queue was
// empty, and an idle node waited on its first queue only.
import { expect } from 'chai';
import type { NexqStartOptions } from '../../src/nexq';
import { sleep, useNodes, waitFor } from '../support/node';

const NO_POLLS = { pollTimeout: 60_000, idlePollInterval: 60_000 };
const q = (name: string) => ({ name, concurrency: 2 });
const JOBS = 60;

describe('a node serving several queues', () => {
  const t = useNodes();

  /** Enqueues JOBS Tally jobs into `queue` and waits until each has run once. */
  async function drains(node: Awaited<ReturnType<typeof t.start>>, queue: string): Promise<void> {
    const out = t.out(`tally-${queue}`);
    const jids = await node.enqueueAll(
      Array.from({ length: JOBS }, () => ({ queue, class: 'Tally', args: [t.url, out] })),
    );
    await waitFor(async () => (await t.redis.llen(out)) >= JOBS, 15_000, `${JOBS} jobs of queue ${queue} run`);
    const ran = await t.redis.lrange(out, 0, -1);
    expect([...ran].sort()).to.deep.equal([...jids].sort());
  }

  const neighbours: Array<{
    state: string;
    options: NexqStartOptions;
    prepare?: () => Promise<void>;
    sharedLayoutOnly?: true;
  }> = [
    { state: 'empty', options: { queues: [q('a'), q('b'), q('busy')] } },
    { state: 'paused for output', options: { queues: [q('a'), q('b'), q('busy')] }, prepare: () => pauseOut('a') },
    {
      state: 'at its globalConcurrency, held by another node',
      options: { queues: [{ name: 'a', concurrency: 2, globalConcurrency: 1 }, q('busy')] },
      prepare: async () => {
        await t.redis.hset(t.keys.running('a'), 'other-node', '1');
        await t.redis.lpush(
          t.keys.queue('a'),
          JSON.stringify({ class: 'Tally', args: [t.url, t.out('held')], jid: 'held-1', queue: 'a' }),
        );
      },
    },
    {
      state: 'with a class at its limit across nodes',
      options: { queues: [q('a'), q('busy')], classConcurrency: { Held: 1 } },
      sharedLayoutOnly: true, // the per-queue key layout refuses class limits
      prepare: async () => {
        await t.redis.hset(t.keys.classRunning('Held'), 'other-node', '1');
        await t.redis.lpush(t.keys.queue('a'), JSON.stringify({ class: 'Held', args: [], jid: 'held-2', queue: 'a' }));
      },
    },
    {
      state: 'with a broken key (WRONGTYPE)',
      options: { queues: [q('a'), q('busy')] },
      prepare: async () => {
        await t.redis.set(t.keys.queue('a'), 'not a list');
      },
    },
    {
      state: 'empty, under a totalConcurrency cap',
      options: { queues: [q('a'), q('b'), q('busy')], totalConcurrency: 2 },
    },
    {
      state: 'empty, with weights',
      options: {
        queues: [
          { name: 'a', concurrency: 2, weight: 5 },
          { name: 'busy', concurrency: 2, weight: 1 },
        ],
      },
    },
  ];

  async function pauseOut(queue: string): Promise<void> {
    const admin = await t.start({ mode: 'enqueuer' });
    await admin.pause(queue, 'out');
  }

  for (const { state, options, prepare, sharedLayoutOnly } of neighbours) {
    it(`refills each freed slot of a busy queue at once while another queue is ${state}`, async function () {
      if (sharedLayoutOnly && t.keys.perQueue) this.skip();
      await prepare?.();
      const node = await t.start({ ...NO_POLLS, ...options });
      await drains(node, 'busy');
    });
  }

  it('refills the freed slots of two busy queues side by side', async () => {
    const node = await t.start({ ...NO_POLLS, queues: [q('a'), q('b'), q('c')] });
    await Promise.all([drains(node, 'a'), drains(node, 'c')]);
  });

  /** Whether a node listens on the wake channel (a wake sent before it does would be lost). */
  async function subscribed(): Promise<boolean> {
    const [, n] = (await t.redis.pubsub('NUMSUB', t.keys.wakeChannel)) as [string, number];
    return n >= 1;
  }

  it('is woken for any of its empty queues, and starts a job enqueued into its third queue without a poll', async () => {
    const node = await t.start({ ...NO_POLLS, queues: ['a', 'b', 'c'] });
    await waitFor(subscribed, 5000, 'a wake subscriber');
    await node.enqueue('c', 'Record', [t.url, t.out('third'), 'c']);
    const [ran] = await t.waitForRecords(t.out('third'), 1);
    expect(ran).to.include({ value: 'c', queue: 'c' });
  });

  it("starts a job another producer pushed straight into its second queue (Sidekiq's client) by the idle poll", async () => {
    await t.start({ pollTimeout: 60_000, idlePollInterval: 200, queues: ['a', 'b', 'c'] });
    await waitFor(subscribed, 5000, 'a wake subscriber');
    await sleep(1000); // past the first checks, which found the queues empty: the poll goes on
    const job = {
      class: 'Record',
      args: [t.url, t.out('foreign'), 'b'],
      jid: 'f00d',
      queue: 'b',
      retry: true,
      created_at: Date.now() / 1000,
      enqueued_at: Date.now() / 1000,
    };
    await t.redis.lpush(t.keys.queue('b'), JSON.stringify(job));
    const [ran] = await t.waitForRecords(t.out('foreign'), 1);
    expect(ran).to.include({ value: 'b', jid: 'f00d' });
  });
});
