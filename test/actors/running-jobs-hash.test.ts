// The process entry's running-jobs hashes (<identity>:workers, <identity>:work) are written by
// change (issue #32 item 4): a job's payload goes to Redis once while it runs, however many beats
// pass; the hashes hold exactly the running jobs after jobs start and end; and when Redis loses
// them (FLUSHALL, as a restart or failover does) the next beat writes them whole again. On a
// redis-server of the test's own, which it watches with MONITOR and empties.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { monitorOf } from '../support/monitor';
import { NodeTest, useNodes, waitFor } from '../support/node';
import { RedisServer } from '../support/redis-server';

/** Both running-jobs hashes of `identity`, which must be equal; the first one's fields. */
async function runningJids(t: NodeTest, identity: string): Promise<string[]> {
  const [workers, work] = await Promise.all([
    t.redis.hgetall(t.keys.processWorkers(identity)),
    t.redis.hgetall(t.keys.processWork(identity)),
  ]);
  expect(work).to.deep.equal(workers);
  return Object.keys(workers).sort();
}

describe('the running-jobs hashes of the process entry', function () {
  this.timeout(30_000);
  let server: RedisServer;
  before(async () => void (server = await RedisServer.start()));
  after(async () => server.stop());
  const t = useNodes({ url: () => server.url, flushFirst: true });

  it("sends a running job's payload once across several beats, and no more once it ended", async () => {
    // Watching before the node starts: MONITOR's start can break on a command racing in (monitor.ts).
    const monitor: Redis = await monitorOf(t.redis);
    const scripts: string[][] = [];
    // The scripts sent (MONITOR also shows the commands a script runs).
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval/i.test(args[0])) scripts.push(args);
    });
    const node = await t.start({
      heartbeatInterval: 1,
      shutdownTimeout: 100,
      queues: [{ name: 'default', concurrency: 2 }],
    });
    const identity = node.node.ctx.identity;
    const marker = `payload-marker-${'x'.repeat(10_000)}`;
    try {
      const out = t.out('slow');
      const jid = await node.enqueue('default', 'Record', [t.url, out, marker, 3500]);
      await waitFor(async () => (await runningJids(t, identity)).includes(jid), 3000, 'the job in the hashes');
      await t.waitForRecords(out, 1, 8000);
      await waitFor(async () => (await runningJids(t, identity)).length === 0, 3000, 'the job gone from the hashes');
      const beats = scripts.filter((args) => args.includes(t.keys.processWorkers(identity)));
      // The job ran across at least three periodic beats, plus the writes after it started and ended.
      expect(beats.length).to.be.at.least(4);
      const withPayload = beats.filter((args) => args.some((arg) => arg.includes(marker)));
      expect(withPayload).to.have.length(1);
    } finally {
      monitor.disconnect();
    }
  });

  it('holds exactly the running jobs after some start and others end', async () => {
    const node = await t.start({
      heartbeatInterval: 5,
      shutdownTimeout: 100,
      queues: [{ name: 'default', concurrency: 4 }],
    });
    const identity = node.node.ctx.identity;
    const out = t.out('runs');
    const long = [await node.enqueue('default', 'Record', [t.url, out, 'long-1', 6000])];
    await waitFor(async () => (await runningJids(t, identity)).length === 1, 3000, 'the first job in the hashes');
    const short = await node.enqueueAll(
      [1, 2].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, `short-${n}`, 300] })),
    );
    long.push(await node.enqueue('default', 'Record', [t.url, out, 'long-2', 6000]));
    await waitFor(async () => (await runningJids(t, identity)).length === 4, 3000, 'four jobs in the hashes');
    expect(await runningJids(t, identity)).to.deep.equal([...long, ...short].sort());
    await t.waitForRecords(out, 2);
    // Within the heartbeat's 5 s: written after the jobs ended, not at the next beat.
    await waitFor(async () => (await runningJids(t, identity)).length === 2, 2000, 'the short jobs gone');
    expect(await runningJids(t, identity)).to.deep.equal([...long].sort());
  });

  it('writes the hashes whole again at the next beat after Redis lost them', async () => {
    const node = await t.start({
      heartbeatInterval: 1,
      shutdownTimeout: 100,
      queues: [{ name: 'default', concurrency: 2 }],
    });
    const identity = node.node.ctx.identity;
    const jids = await node.enqueueAll(
      [1, 2].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('slow'), n, 6000] })),
    );
    await waitFor(async () => (await runningJids(t, identity)).length === 2, 3000, 'both jobs in the hashes');
    await t.redis.flushall();
    expect(await runningJids(t, identity)).to.deep.equal([]);
    await waitFor(async () => (await runningJids(t, identity)).length === 2, 3000, 'both jobs back in the hashes');
    expect(await runningJids(t, identity)).to.deep.equal([...jids].sort());
    expect(await t.redis.ttl(t.keys.processWork(identity))).to.be.within(1, 60);
  });
});
