// An idle node holds one wake subscriber, whatever the number of its queues: nexq's own pushes
// wake it through the wake channel (src/fetch/wake-signals.ts), and the idle poll
// (src/fetch/idle-poll.ts) finds what a foreign producer pushed. Every guarantee of the regular
// fetch stays: a quiet node starts nothing, a queue left is not served, a lost subscriber is
// replaced.
import { expect } from 'chai';
import { RECLAIM_INTERVAL_MS } from '../../src/fetch/reclaimer';
import { monitorOf } from '../support/monitor';
import { sleep, useNodes, waitFor } from '../support/node';

/**
 * Long enough that neither the regular poll nor the idle poll runs during a test: only a wake can
 * start a job. Two queues: a node of one waits for it with its fetch sent ahead instead
 * (test/fetch/waiting-fetch.test.ts).
 */
const NO_POLLS = { pollTimeout: 60_000, idlePollInterval: 60_000, queues: ['default', 'spare'] };
const MANY = 200;

describe('idle node', () => {
  const t = useNodes();
  const record = (n: number, queue = 'default'): [string, string, unknown[]] => [
    queue,
    'Record',
    [t.url, t.out('idle'), n],
  ];

  /** Waits until a node listens on the wake channel (a wake sent before would be lost). */
  async function subscribed(count = 1): Promise<void> {
    await waitFor(
      async () => {
        const [, n] = (await t.redis.pubsub('NUMSUB', t.keys.wakeChannel)) as [string, number];
        return n >= count;
      },
      5000,
      'a wake subscriber',
    );
  }

  /** The ids of the connections the test's Redis holds. */
  async function clientIds(): Promise<Set<string>> {
    const clients = (await t.redis.client('LIST')) as string;
    return new Set(clients.split('\n').flatMap((line) => line.match(/^id=(\d+)/)?.[1] ?? []));
  }

  /** INFO commandstats summed over every command but INFO itself. */
  async function commandCalls(): Promise<number> {
    const stats = await t.redis.info('commandstats');
    let calls = 0;
    for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info') calls += Number(m[2]);
    return calls;
  }

  it('takes each job enqueued into an idle queue, one at a time, each once, and leaves its backup list empty', async () => {
    const node = await t.start(NO_POLLS);
    await subscribed();
    for (let n = 1; n <= 5; n++) {
      await node.enqueue(...record(n));
      await t.waitForRecords(t.out('idle'), n);
    }
    expect((await t.records(t.out('idle'))).map((r) => r.value)).to.deep.equal([1, 2, 3, 4, 5]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0,
      5000,
      'an empty backup list',
    );
  });

  it("fetches once for each job pushed into an idle queue: its PUBLISH and its key's invalidation are one signal", async () => {
    // Watching before the node starts: MONITOR's start can break on a command racing in (monitor.ts).
    const monitor = await monitorOf(t.redis);
    const queueKey = t.keys.queue('default');
    let fetches = 0; // fetch.lua takes a queue's jobs with one LMPOP per call
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'lmpop' && args[2] === queueKey) fetches++;
    });
    try {
      const node = await t.start(NO_POLLS);
      await subscribed();
      await waitFor(() => fetches > 0, 5000, "the node's first fetch");
      const jobs = 10;
      // Each job is pushed once the one before ran, with the queue idle (and its key tracked).
      const from = fetches;
      for (let n = 1; n <= jobs; n++) {
        await node.enqueue(...record(n));
        await t.waitForRecords(t.out('idle'), n);
        await sleep(50);
      }
      // One fetch per job, where there were two. A second is right, and rare, only when the other
      // signal is read after the fetch's answer (two sockets): it cannot tell it was answered.
      expect(fetches - from, 'fetch calls for the jobs').to.be.within(jobs, jobs + 2);
    } finally {
      monitor.disconnect();
    }
  });

  it(`serving ${MANY} idle queues holds at most 4 connections and starts a job enqueued into the last one`, async function () {
    this.timeout(60_000);
    const before = await clientIds();
    const queues = Array.from({ length: MANY }, (_, i) => ({ name: `q${i}`, concurrency: 2 }));
    const node = await t.start({ ...NO_POLLS, queues });
    await subscribed();
    await sleep(500); // every queue fetched once and found empty
    const opened = [...(await clientIds())].filter((id) => !before.has(id));
    expect(opened.length).to.be.at.most(4);
    await node.enqueue(...record(1, `q${MANY - 1}`));
    const [ran] = await t.waitForRecords(t.out('idle'), 1);
    expect(ran).to.include({ value: 1, queue: `q${MANY - 1}` });
  });

  it(`sends Redis at most 10 commands a second while it serves ${MANY} idle queues`, async function () {
    this.timeout(60_000);
    // The per-queue key layout asks each idle queue apart (one EXISTS per queue per check), and its
    // scheduler reads each queue's schedule and retry sets: there the traffic grows with the queues.
    if (t.keys.perQueue) this.skip();
    const queues = Array.from({ length: MANY }, (_, i) => ({ name: `q${i}`, concurrency: 2 }));
    // The defaults of the poll intervals: this is the traffic a deployed idle node makes.
    await t.start({ queues, pollTimeout: 100, idlePollInterval: 1000, schedulerPollTimeout: 1000 });
    await subscribed();
    await sleep(1500); // past the start's fetches and the first idle check
    const from = await commandCalls();
    const startedAt = Date.now();
    // Longer than RECLAIM_INTERVAL_MS: the periodic reclaim of every served queue is in the window.
    await sleep(RECLAIM_INTERVAL_MS + 1000);
    const calls = (await commandCalls()) - from;
    const seconds = (Date.now() - startedAt) / 1000;
    expect(calls / seconds).to.be.at.most(10);
  });

  it('starts a job a foreign producer pushed straight into an idle queue: no wake signal is sent for it', async () => {
    const heard: string[] = [];
    const listener = t.redis.duplicate();
    await listener.subscribe(t.keys.wakeChannel);
    listener.on('message', (_channel: string, queueKey: string) => heard.push(queueKey));
    try {
      await t.start({ pollTimeout: 60_000, idlePollInterval: 200, queues: ['a', 'b'] });
      await subscribed(2);
      await sleep(1000); // past the first checks, which found the queues empty: the poll goes on
      const job = { class: 'Record', args: [t.url, t.out('idle'), 'b'], jid: 'f00d', queue: 'b', retry: true };
      await t.redis.lpush(t.keys.queue('b'), JSON.stringify({ ...job, enqueued_at: Date.now() / 1000 }));
      const [ran] = await t.waitForRecords(t.out('idle'), 1);
      expect(ran).to.include({ value: 'b', jid: 'f00d' });
      expect(heard).to.deep.equal([]);
    } finally {
      listener.disconnect();
    }
  });

  it('does not start a job that arrives after the node went quiet: it stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    const { ctx } = node.node;
    await subscribed();
    // As TSTP does (the heartbeat sets it), at once.
    ctx.lifecycle.goQuiet();
    await node.enqueue(...record(1));
    await sleep(500);
    expect(await t.records(t.out('idle'))).to.deep.equal([]);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.backup(ctx.config.nodeId, 'default'))).to.equal(0);
  });

  it('does not start a job that arrives after the node left the queue: it stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    await subscribed();
    await node.unsubscribe('default');
    await node.enqueue(...record(1));
    await sleep(500);
    expect(await t.records(t.out('idle'))).to.deep.equal([]);
    expect(await t.redis.lrange(t.keys.queue('default'), 0, -1)).to.have.length(1);
    expect(await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))).to.equal(0);
  });

  it('subscribes again after its subscriber connection is killed, and runs the next job', async () => {
    const node = await t.start(NO_POLLS);
    await subscribed();
    const clients = (await t.redis.client('LIST')) as string;
    const id = clients
      .split('\n')
      .find((line) => / cmd=subscribe( |$)/.test(line))
      ?.match(/^id=(\d+)/)?.[1];
    expect(id).to.be.a('string');
    await t.redis.client('KILL', 'ID', id!);
    await sleep(200);
    await subscribed();
    await node.enqueue(...record(1));
    const [ran] = await t.waitForRecords(t.out('idle'), 1);
    expect(ran.value).to.equal(1);
  });
});
