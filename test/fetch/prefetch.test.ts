// `prefetch`: a node keeps a few jobs fetched ahead of its free slots, from a backlog only. They wait
// on its worker threads and in its backup list (so a crash recovers them as running jobs), are not
// shown as busy, and go back to the head of their queue when the node goes quiet or stops; a short
// queue is shared, not held; a queue of concurrency 1 takes none ahead (its jobs start in order),
// nor one under a rate limit (a job counted in a window starts in it); a queue whose jobs end
// quicker than a refill keeps more ahead.
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { captureLogs } from '../support/capture-logs';
import { sleep, useNodes, waitFor } from '../support/node';

describe('jobs fetched ahead (prefetch)', () => {
  const t = useNodes();

  async function enqueueTallies(node: Nexq, count: number, sleepMs: number, out: string): Promise<string[]> {
    const jobs = Array.from({ length: count }, () => ({ queue: 'q', class: 'Tally', args: [t.url, out, sleepMs] }));
    return node.enqueueAll(jobs);
  }

  const backupOf = (node: Nexq) => t.keys.backup(node.node.ctx.config.nodeId, 'q');

  it('keeps prefetch × concurrency jobs of a backlog in the backup list, not busy, and runs every job once', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 2 }], prefetch: 1 });
    const out = t.out('ran');
    const jids = await enqueueTallies(node, 150, 20, out);
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 4, 10_000, '2 running and 2 fetched ahead');
    expect(node.node.ctx.jobs?.running.list().length).to.be.at.most(2);
    await waitFor(async () => (await t.redis.llen(out)) >= 150, 20_000, 'every job to run');
    await sleep(100);
    expect((await t.redis.lrange(out, 0, -1)).sort()).to.deep.equal([...jids].sort());
  });

  it('keeps more than prefetch × concurrency ahead of a queue whose jobs run shorter than a refill, and runs each once', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 10 }], prefetch: 1 });
    // Jobs that do nothing set the queue's pace (their run time on the threads, a moving average),
    // until it is well under the millisecond a refill takes: a stall of the machine in the last of
    // them would leave it above. Jobs held at a gate then keep it (none of them ends).
    const drained = async () => (await t.redis.llen(t.keys.queue('q'))) + (await t.redis.llen(backupOf(node))) === 0;
    const pace = () => node.node.ctx.jobs?.running.slots.pace('q') ?? Infinity;
    for (let round = 0; round < 20 && !(pace() < 0.5); round++) {
      await node.enqueueAll(Array.from({ length: 100 }, () => ({ queue: 'q', class: 'Noop', args: [] })));
      await waitFor(drained, 10_000, 'the short jobs to run');
    }
    expect(pace(), 'the pace of jobs that do nothing, ms').to.be.below(0.5);
    const gate = t.out('gate');
    // Enough that jobs ahead leave a backlog (100) behind them.
    const held = await node.enqueueAll(
      Array.from({ length: 300 }, () => ({ queue: 'q', class: 'Gate', args: [t.url, gate] })),
    );
    // 10 running and 10 ahead is what prefetch 1 alone keeps; jobs this short get more.
    await waitFor(async () => (await t.redis.llen(backupOf(node))) > 20, 10_000, 'more than 10 jobs ahead');
    expect(node.node.ctx.jobs?.running.list().length).to.be.at.most(10);
    await t.redis.rpush(gate, ...held);
    await waitFor(drained, 20_000, 'every gated job to run');
    await sleep(100);
    expect(await t.redis.llen(gate), 'each gated job ran once: one token each').to.equal(0);
  });

  it('takes none ahead under a rate limit: each job starts in the window that counted it', async () => {
    const node = await t.start({
      queues: [
        { name: 'q', concurrency: 2, rateLimit: { limit: 1000, per: 1 } },
        { name: 'plain', concurrency: 2 },
      ],
      prefetch: 1,
    });
    // The manager's served queues (src/fetch/served-queues.ts): what each may take ahead of its slots.
    const manager = node.node.ctx.registry.whereis('manager') as unknown as {
      queues: { get(name: string): { prefetch: number } | undefined };
    };
    expect(manager.queues.get('q')?.prefetch).to.equal(0);
    expect(manager.queues.get('plain')?.prefetch, 'the same node takes ahead where no rate limit holds').to.equal(2);
  });

  it('takes none ahead from a short queue: two nodes share 20 jobs without holding any back', async () => {
    // The default prefetch: as many jobs ahead as the queue's concurrency.
    const a = await t.start({ queues: [{ name: 'q', concurrency: 10 }] });
    const b = await t.start({ queues: [{ name: 'q', concurrency: 10 }] });
    const out = t.out('ran');
    const jids = await enqueueTallies(a, 20, 300, out);
    let most = 0;
    while ((await t.redis.llen(out)) < 20) {
      const [la, lb] = await Promise.all([t.redis.llen(backupOf(a)), t.redis.llen(backupOf(b))]);
      most = Math.max(most, la, lb);
      await sleep(5);
    }
    expect(most, 'most jobs in one backup list').to.be.at.most(10);
    expect((await t.redis.lrange(out, 0, -1)).sort()).to.deep.equal([...jids].sort());
  });

  it('puts the jobs fetched ahead back at the head of the queue when the node stops, even with a fixed node id', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 2 }], prefetch: 1, nodeId: 'fixed-1' });
    const out = t.out('ran');
    const jids = await enqueueTallies(node, 150, 200, out);
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 4, 10_000, '2 running and 2 fetched ahead');
    // Shown as reserved in its process entry, beside busy (the dashboard's and the CLI's column).
    const entry = t.keys.process(node.node.ctx.identity);
    await waitFor(
      async () => Number(await t.redis.hget(entry, 'reserved')) >= 1,
      10_000,
      'reserved in the process entry',
    );
    await t.stop(node);
    const ran = await t.redis.lrange(out, 0, -1);
    const queued = await t.redis.lrange(t.keys.queue('q'), 0, -1);
    expect(await t.redis.llen(t.keys.backup('fixed-1', 'q')), 'left in the backup list').to.equal(0);
    expect([...ran, ...queued.map((raw) => JSON.parse(raw).jid)].sort()).to.deep.equal([...jids].sort());
    // The queue's head (its right end) holds the oldest jobs not run, in order: the ones fetched
    // ahead. (Two slots: which of them started first is not set, so the not-run are looked up.)
    const head = queued.slice(-2).map((raw) => JSON.parse(raw).jid);
    const notRun = jids.filter((jid) => !ran.includes(jid));
    expect(head.reverse()).to.deep.equal(notRun.slice(0, 2));
  });

  it('gives back the jobs fetched ahead of a queue paused for output, at its next refill', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 2 }], prefetch: 1 });
    const out = t.out('ran');
    const jids = await enqueueTallies(node, 150, 300, out);
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 4, 10_000, '2 running and 2 fetched ahead');
    const ranBefore = await t.redis.llen(out);
    await node.pause('q', 'out');
    // The jobs running finish; those fetched ahead may start before the refill finds the pause;
    // the rest go back to the queue.
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 0, 10_000, 'the backup list to empty');
    await sleep(400);
    const ran = await t.redis.llen(out);
    // At most the two running and the two waiting on threads, which their slots may go to before
    // the refill finds the pause.
    expect(ran - ranBefore, 'jobs that ended after the pause').to.be.at.most(4);
    expect(await t.redis.llen(t.keys.queue('q'))).to.equal(jids.length - ran);
  });

  it('gives back the jobs fetched ahead when the node goes quiet', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 2 }], prefetch: 1 });
    const out = t.out('ran');
    const jids = await enqueueTallies(node, 150, 200, out);
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 4, 10_000, '2 running and 2 fetched ahead');
    node.node.ctx.lifecycle.goQuiet();
    await waitFor(async () => (await t.redis.llen(backupOf(node))) === 0, 10_000, 'the backup list to empty');
    const ran = await t.redis.llen(out);
    await sleep(500);
    expect(await t.redis.llen(out), 'jobs started while quiet').to.equal(ran);
    expect(await t.redis.llen(t.keys.queue('q'))).to.equal(jids.length - ran);
  });

  it('drops the jobs fetched ahead that a reaper took while it was declared dead, says so once, and goes on', async function () {
    this.timeout(40_000);
    const logs = captureLogs();
    const out = t.out('ran');
    // A backlog there before the node starts (jobs are fetched ahead only while over 100 more
    // wait, fetch.lua's BACKLOG): two long jobs first, short ones behind.
    const producer = await t.start({ mode: 'enqueuer' });
    const jobs = [3000, 3000, ...Array<number>(120).fill(10)].map((ms) => ({
      queue: 'q',
      class: 'Tally',
      args: [t.url, out, ms],
    }));
    const [long1, long2, ...short] = await producer.enqueueAll(jobs);
    const long = [long1, long2];
    const node = await t.start({
      queues: [{ name: 'q', concurrency: 2 }],
      prefetch: 1,
      heartbeatInterval: 1,
      logger: logs.logger,
    });
    // Both long jobs running (a slot may go to a short job first: they start in rough order only).
    const runningNow = () => (node.node.ctx.jobs?.running.list() ?? []).map((job) => job.jid);
    await waitFor(
      async () => long.every((jid) => runningNow().includes(jid)) && (await t.redis.llen(backupOf(node))) === 4,
      10_000,
      'the 2 long jobs running and 2 fetched ahead',
    );
    // What a survivor's reaper does to a node silent for nodeTimeout (recover-node.lua): the node
    // leaves the node list and its backup list goes back to the head of its queue.
    const nodeId = node.node.ctx.config.nodeId;
    const claim = t.redis.multi().zrem(t.keys.nodes, nodeId);
    for (let i = 0; i < 4; i++) claim.lmove(backupOf(node), t.keys.queue('q'), 'LEFT', 'RIGHT');
    await claim.exec();
    await waitFor(() => /was declared dead/.test(logs.text()), 5000, 'the node to say it was declared dead');
    await waitFor(async () => (await t.redis.llen(out)) >= jobs.length + 2, 30_000, 'every job to run');
    await sleep(300);
    const runs = await t.redis.lrange(out, 0, -1);
    // The jobs it had running ran on a "failed" node and again elsewhere; none it held ahead did.
    for (const jid of long) expect(runs.filter((ran) => ran === jid)).to.have.length(2);
    expect(runs.filter((jid) => !long.includes(jid)).sort()).to.deep.equal([...short].sort());
    expect(logs.text().match(/was declared dead/g)).to.have.length(1);
    expect(logs.text()).to.match(/drops the 2 job\(s\) it held fetched ahead/);
    expect(await t.redis.zscore(t.keys.nodes, nodeId), 'back in the node list').not.to.equal(null);
  });
});
