// `nexq groups <queue>` and Nexq#groups: a fair queue's groups, waiting and running, the limit that
// holds each back, and the jobs of each started in the last 15 minutes (counted by the fetch).
import { expect } from 'chai';
import { sleep, useNodes, waitFor } from '../support/node';
import { cliAgainst } from '../support/cli';
import { NotFairQueueError } from '../../src/errors';

describe("a fair queue's groups, as nexq groups shows them", () => {
  const t = useNodes();
  const { cli, json, ok } = cliAgainst(() => t);

  it('lists each group with its jobs waiting and running on all nodes, most waiting first', async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const job = (group: string | undefined) => ({
      queue: 'default',
      class: 'Sleep',
      args: [10_000],
      options: group === undefined ? {} : { group },
    });
    await enqueuer.enqueueAll([...Array.from({ length: 5 }, () => job('acme')), job('globex'), job(undefined)]);
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 2, fair: true, groupConcurrency: 1 }],
      shutdownTimeout: 50,
    });
    // Two slots, one job per group at a time: acme and globex run, the default group waits behind them.
    await waitFor(
      async () => (await node.groups('default')).reduce((n, g) => n + g.running, 0) === 2,
      5000,
      'two running',
    );
    // The node serves the queue, so it knows groupConcurrency: acme and globex are at it.
    expect(await node.groups('default')).to.deep.equal([
      { group: 'acme', waiting: 4, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
      { group: '', waiting: 1, running: 0, paused: false, started15m: 0, limited: null },
      { group: 'globex', waiting: 0, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
    ]);
    // The CLI (and the enqueuer) do not serve it: the same, by the limits the node's entry says.
    const seen = await node.groups('default');
    expect(await enqueuer.groups('default')).to.deep.equal(seen);
    expect(await json(['groups', 'default'])).to.deep.equal(seen);
    expect(await ok(['groups', 'default'])).to.match(
      /^GROUP\s+WAITING\s+RUNNING\s+PAUSED\s+STARTED-15M\s+LIMITED\nacme\s+4\s+1\s+-\s+1\s+concurrency\n\(default\)\s+1\s+0\s+-\s+0\s+-\n/,
    );
  });

  it('pauses one group on every node: its jobs keep their place while the others run, and run once resumed', async () => {
    const out = t.out('paused');
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const job = (group: string, n: number) => ({
      queue: 'default',
      class: 'Record',
      args: [t.url, out, `${group}-${n}`],
      options: { group },
    });
    expect(await enqueuer.pauseGroup('default', 'held')).to.equal(true);
    expect(await enqueuer.pauseGroup('default', 'held')).to.equal(false);
    await enqueuer.enqueueAll([job('held', 1), job('free', 1), job('held', 2), job('free', 2)]);
    await t.start({ queues: [{ name: 'default', concurrency: 2, fair: true }] });
    await t.waitForRecords(out, 2);
    await sleep(300); // many poll intervals
    expect((await t.records(out)).map((r: { value: string }) => r.value).sort()).to.deep.equal(['free-1', 'free-2']);
    const [held] = await enqueuer.groups('default');
    expect(held).to.deep.equal({ group: 'held', waiting: 2, running: 0, paused: true, started15m: 0, limited: null });
    expect(await ok(['groups', 'resume', 'default', 'held'])).to.equal('group held of queue default resumed\n');
    const values = (await t.waitForRecords(out, 4)).map((r: { value: string }) => r.value);
    expect(values.slice(2)).to.deep.equal(['held-1', 'held-2']);
  });

  it('refuses to pause a group of a queue the live nodes serve, none of them fair: the pause would hold nothing', async () => {
    const node = await t.start({ queues: [{ name: 'plain', concurrency: 1 }] });
    await waitFor(async () => (await t.redis.scard(t.keys.processes)) === 1, 5000, 'the node beating');
    const err = await node.pauseGroup('plain', 'acme').then(
      () => expect.fail('paused'),
      (e: unknown) => e as NotFairQueueError,
    );
    expect(err).to.be.instanceOf(NotFairQueueError);
    expect(err.code).to.equal('QUEUE_NOT_FAIR');
    expect(err.message).to.match(/^queue "plain" is not a fair queue .* so a group cannot be paused$/);
    await t.redis.sadd(t.keys.queues, 'plain');
    const refused = await cli(['groups', 'resume', 'plain', 'acme']);
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.match(/^nexq: queue "plain" is not a fair queue .* so a group cannot be resumed\n$/);
    expect(await t.redis.exists(t.keys.fair('plain').paused)).to.equal(0);
  });

  it('pauses a group whose jobs already wait in turn: it leaves the round until resumed', async () => {
    const out = t.out('midway');
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1, fair: true }], threads: 1 });
    const job = (group: string, n: number) => ({
      queue: 'default',
      class: 'Record',
      args: [t.url, out, `${group}-${n}`, 300],
      options: { group },
    });
    // One slot: the first fetch moves all four into the groups (a, b in turn) and starts a-1.
    await node.enqueueAll([job('a', 1), job('b', 1), job('a', 2), job('b', 2)]);
    await waitFor(async () => (await t.redis.zcard(t.keys.fair('default').jobs)) === 3, 5000, 'three in the groups');
    expect(await node.pauseGroup('default', 'b')).to.equal(true);
    await t.waitForRecords(out, 2, 10_000);
    await sleep(500);
    expect((await t.records(out)).map((r: { value: string }) => r.value)).to.deep.equal(['a-1', 'a-2']);
    expect(await t.redis.lrange(t.keys.fair('default').ring, 0, -1)).to.deep.equal([]);
    expect(await node.resumeGroup('default', 'b')).to.equal(true);
    const values = (await t.waitForRecords(out, 4, 10_000)).map((r: { value: string }) => r.value);
    expect(values.slice(2)).to.deep.equal(['b-1', 'b-2']);
  });

  it("counts each group's jobs started on all nodes, and lists a group busy this minute with none left waiting", async () => {
    const out = t.out('counted');
    const job = (group: string, n: number) => ({
      queue: 'default',
      class: 'Record',
      args: [t.url, out, `${group}-${n}`],
      options: { group },
    });
    const first = await t.start({ queues: [{ name: 'default', concurrency: 2, fair: true }] });
    const second = await t.start({ queues: [{ name: 'default', concurrency: 2, fair: true }] });
    await first.enqueueAll([job('a', 1), job('b', 1), job('a', 2), job('a', 3), job('b', 2), job('c', 1)]);
    await t.waitForRecords(out, 6);
    expect(await second.groups('default')).to.deep.equal([
      { group: 'a', waiting: 0, running: 0, paused: false, started15m: 3, limited: null },
      { group: 'b', waiting: 0, running: 0, paused: false, started15m: 2, limited: null },
      { group: 'c', waiting: 0, running: 0, paused: false, started15m: 1, limited: null },
    ]);
    // One hash per minute, group -> jobs taken, which expires (an hour after its first count).
    const counts = await t.redis.keys(`${t.keys.fair('default').starts}:*`);
    expect(counts.length).to.be.within(1, 2);
    for (const key of counts) expect(await t.redis.ttl(key)).to.be.within(3000, 3600);
  });

  it('says a group is out of rate room while its next job waits for it', async () => {
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 2, fair: true, groupRateLimit: { limit: 1, per: 600 } }],
    });
    await node.enqueueAll(
      [1, 2].map((n) => ({
        queue: 'default',
        class: 'Record',
        args: [t.url, t.out('rated'), n],
        options: { group: 'r' },
      })),
    );
    await t.waitForRecords(t.out('rated'), 1);
    await waitFor(async () => (await node.groups('default'))[0]?.waiting === 1, 5000, 'one waiting');
    expect(await node.groups('default')).to.deep.equal([
      { group: 'r', waiting: 1, running: 0, paused: false, started15m: 1, limited: 'rate' },
    ]);
  });
});
