// What reads a queue sees a fair queue's jobs in its groups too; a dead node's grouped jobs come back.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';
import { queueInfo } from '../../src/redis/queue-info';
import { deleteJobByJid, locateJob } from '../../src/redis/job-index';
import { clearQueueList } from '../../src/redis/move-scripts';
import { defineScripts } from '../../src/redis/scripts';

describe('a fair queue, as its readers see it', () => {
  const t = useNodes();
  const fair = { queues: [{ name: 'default', concurrency: 1, fair: true }], shutdownTimeout: 50 };

  it('counts, finds, deletes and clears the jobs that wait in its groups', async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const jids = await Promise.all(
      ['a', 'a', 'b', 'b', 'c', 'c'].map((group) => enqueuer.enqueue('default', 'Sleep', [10_000], { group })),
    );
    await t.start(fair);
    // The first fetch moved every job into the groups and took one: five wait there, none in the list.
    await waitFor(async () => (await t.redis.zcard(t.keys.fair('default').jobs)) === 5, 5000, 'five jobs in groups');
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
    const [info] = await queueInfo({ redis: t.redis, keys: t.keys });
    expect(info).to.include({ queue: 'default', size: 5 });
    expect(info.latency).to.be.at.least(0);

    const redis = defineScripts(t.redis);
    const waiting = jids[5];
    const located = await locateJob(redis, t.keys, waiting);
    expect(located).to.include({ state: 'queued', queue: 'default', key: t.keys.fair('default').jobs });
    expect(JSON.parse(located!.raw)).to.include({ jid: waiting, group: 'c' });
    expect(await deleteJobByJid(redis, t.keys, waiting)).to.equal(true);
    expect(await t.redis.zcard(t.keys.fair('default').jobs)).to.equal(4);
    // Its group's count went down with it (c had two jobs waiting).
    expect(await t.redis.hget(t.keys.fair('default').groups, 'c')).to.equal('1');
    expect(await t.redis.hexists(t.keys.jobIndex('default'), waiting)).to.equal(0);

    // A group parked at its limit (lua/_fair.lua) goes with the rest.
    await t.redis.rpush(t.keys.fair('default').parked, 'a');
    expect(await clearQueueList(redis, t.keys, 'default')).to.equal(4);
    const { jobs, groups, ring, parked } = t.keys.fair('default');
    expect(await t.redis.exists(jobs, groups, ring, parked)).to.equal(0);
  });

  it('lets a group whose last waiting job is deleted leave the ring, and never spins on a group in it twice', async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const jids: string[] = [];
    for (const group of ['a', 'b', 'c']) jids.push(await enqueuer.enqueue('default', 'Sleep', [10_000], { group }));
    await t.start(fair); // takes a's job, which runs for the test's length
    const { jobs, ring } = t.keys.fair('default');
    await waitFor(async () => (await t.redis.zcard(jobs)) === 2, 5000, 'b and c waiting in their groups');
    expect(await deleteJobByJid(defineScripts(t.redis), t.keys, jids[2])).to.equal(true);
    // Left in the ring, c would be pushed again with its next job: a group twice in the ring.
    expect(await t.redis.lrange(ring, 0, -1)).to.deep.equal(['b']);
    // Were it there twice anyway, a fetch that empties the group stops after one turn of the ring.
    await t.redis.rpush(ring, 'b');
    const out = t.out('ran');
    await enqueuer.enqueue('default', 'Record', [t.url, out, 'next'], { group: 'd' });
    await t.start({ queues: [{ name: 'default', concurrency: 5, fair: true }], shutdownTimeout: 50 });
    expect((await t.waitForRecords(out, 1, 10_000)).map((r: { value: string }) => r.value)).to.deep.equal(['next']);
    await waitFor(async () => (await t.redis.zcard(jobs)) === 0, 5000, 'b taken too');
  });

  it("requeues a dead node's grouped jobs, which then run by group", async () => {
    const out = t.out('recovered');
    const job = (n: number, group: string) =>
      JSON.stringify({ class: 'Record', args: [t.url, out, `${group}-${n}`], jid: `r${n}`, queue: 'default', group });
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000 - 60), 'ghost');
    await t.redis.rpush(t.keys.backup('ghost', 'default'), job(1, 'a'), job(2, 'b'), job(3, 'a'));
    await t.start({ ...fair, heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1 });
    const values = (await t.waitForRecords(out, 3, 10_000)).map((r: { value: string }) => r.value);
    expect(values.sort()).to.deep.equal(['a-1', 'a-3', 'b-2']);
    expect(await t.redis.exists(t.keys.backup('ghost', 'default'))).to.equal(0);
  });
});
