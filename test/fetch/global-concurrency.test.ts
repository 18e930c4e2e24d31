import { expect } from 'chai';
import { decodeJob } from '../../src/job/job';
import { JobSteps } from '../../src/run/job-steps';
import { runsJobs } from '../../src/run/node-context';
import { fateOf } from '../../src/run/outcome';
import { nowSeconds } from '../../src/job/time';
import { useNodes, waitFor } from '../support/node';

describe('a queue limit across all nodes', () => {
  const t = useNodes();
  const limited = { queues: [{ name: 'default', concurrency: 5, globalConcurrency: 2 }] };

  it('holds two nodes of 5 slots each to 2 running jobs of the queue together', async () => {
    const key = t.out('global');
    const a = await t.start(limited);
    await t.start(limited);
    await a.enqueueAll(
      Array.from({ length: 12 }, () => ({ queue: 'default', class: 'Concurrent', args: [t.url, key, 60] })),
    );
    await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 12, 15_000, 'all jobs done');
    expect(await t.redis.get(`${key}:max`)).to.equal('2');
    // Every slot given back: the last acks land just after the handlers' own records.
    await waitFor(
      async () => (await t.redis.hvals(t.keys.running('default'))).length === 0,
      5000,
      'every slot given back',
    );
  });

  it('leaves a queue whose running hash holds a non-integer count for this node, and serves the others', async () => {
    const out = t.out('bad-count');
    const node = await t.start({ queues: [{ name: 'default', concurrency: 5, globalConcurrency: 2 }, 'other'] });
    const { ctx } = node.node;
    await waitFor(() => ctx.lifecycle.rehydrated, 5000, 'the boot re-hydration');
    await t.redis.hset(t.keys.running('default'), ctx.config.nodeId, 'x');
    await node.enqueue('default', 'Record', [t.url, out, 'limited']);
    await node.enqueue('other', 'Record', [t.url, out, 'other']);
    expect((await t.waitForRecords(out, 1)).map((r) => r.value)).to.deep.equal(['other']);
    // Checked before anything moved: the job waits in its queue, not in a backup list.
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.backup(ctx.config.nodeId, 'default'))).to.equal(0);
    await t.redis.hdel(t.keys.running('default'), ctx.config.nodeId);
    expect((await t.waitForRecords(out, 2)).map((r) => r.value).sort()).to.deep.equal(['limited', 'other']);
  });

  it('gives back the slots of failed jobs too', async () => {
    const node = await t.start(limited);
    await node.enqueueAll(Array.from({ length: 3 }, () => ({ queue: 'default', class: 'Fail', args: [] })));
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 3, 8000, 'three failures');
    expect(await t.redis.hvals(t.keys.running('default'))).to.deep.equal([]);
  });

  it("repairs a dead node's slots when it is recovered", async () => {
    const job = (n: number) =>
      JSON.stringify({ class: 'Record', args: [t.url, t.out('rep'), n], jid: `g${n}`, queue: 'default' });
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000 - 60), 'ghost');
    await t.redis.rpush(t.keys.backup('ghost', 'default'), job(1), job(2));
    await t.redis.hset(t.keys.running('default'), 'ghost', '2');
    await t.start({ ...limited, heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1 });
    await t.waitForRecords(t.out('rep'), 2, 10_000);
    expect(await t.redis.hget(t.keys.running('default'), 'ghost')).to.equal(null);
  });

  it('counts an at-most-once job against the limit while it runs, and a stop that cuts it off leaves no slot', async () => {
    const key = t.out('amo');
    const node = await t.start({ ...limited, shutdownTimeout: 50 });
    const nodeId = node.node.ctx.config.nodeId;
    await node.enqueueAll(
      Array.from({ length: 4 }, () => ({
        queue: 'default',
        class: 'Concurrent',
        args: [t.url, key, 100],
        options: { atMostOnce: true },
      })),
    );
    await waitFor(async () => (await t.redis.llen(`${key}:done`)) === 4, 10_000, 'all at-most-once jobs done');
    expect(await t.redis.get(`${key}:max`)).to.equal('2');
    await waitFor(
      async () => (await t.redis.hvals(t.keys.running('default'))).length === 0,
      5000,
      'every slot given back',
    );

    await node.enqueue('default', 'Sleep', [60_000], { atMostOnce: true });
    await waitFor(
      async () => (await t.redis.hget(t.keys.running('default'), nodeId)) === '1',
      5000,
      'the slot held while it runs',
    );
    expect(await t.redis.llen(t.keys.backup(nodeId, 'default'))).to.equal(0);
    await t.stop(node);
    expect(await t.redis.hget(t.keys.running('default'), nodeId)).to.equal(null);
  });

  it('repeats no at-most-once step when a first try landed and only its reply was lost', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 5, globalConcurrency: 3 }] });
    const { ctx } = node.node;
    if (!runsJobs(ctx)) throw new Error('a node that runs jobs was started');
    const nodeId = ctx.config.nodeId;
    const backup = ctx.keys.backup(nodeId, 'q');
    // After the boot's re-hydration, which would put planted backup entries back in the queue.
    await waitFor(() => ctx.lifecycle.rehydrated, 5000, 'the boot re-hydration');
    const plant = async (jid: string) => {
      // As a fetch leaves an at-most-once job: in the backup list, indexed as running here.
      const raw = JSON.stringify({ class: 'Record', args: [], jid, queue: 'q', at_most_once: true });
      await t.redis.lpush(backup, raw);
      await t.redis.hset(ctx.keys.jobIndex('q'), jid, `1\trunning\tq\t${nodeId}`);
      const fetched = { raw, job: decodeJob(raw), queue: 'q' };
      return { steps: new JobSteps(ctx, fetched, backup), fetched };
    };
    const failing = await plant('amo-fail');
    const succeeding = await plant('amo-ok');
    // Their two slots and one of another job that keeps running.
    await t.redis.hset(ctx.keys.running('q'), nodeId, '3');

    expect(await failing.steps.takeOffBackup()).to.equal(true);
    expect(await failing.steps.takeOffBackup()).to.equal(true); // the retry finds it taken by this node
    expect(await succeeding.steps.takeOffBackup()).to.equal(true);
    expect(await t.redis.llen(backup)).to.equal(0);

    const failed = fateOf(
      { kind: 'failure', error: { class: 'BoomError', message: 'boom' }, durationMs: 1 },
      failing.fetched,
      ctx.config,
      nowSeconds(),
    );
    expect(failed.to).to.equal('dead');
    await failing.steps.apply(failed, true, true);
    await failing.steps.apply(failed, true, true);
    await succeeding.steps.apply({ to: 'done' }, true, true);
    await succeeding.steps.apply({ to: 'done' }, true, true);
    expect(await t.redis.zcard(ctx.keys.dead('q'))).to.equal(1);
    expect(await t.redis.hget(ctx.keys.running('q'), nodeId)).to.equal('1');
    expect(await t.redis.hexists(ctx.keys.jobIndex('q'), 'amo-ok')).to.equal(0);
    expect((await node.show('amo-fail'))!.state).to.equal('dead');
  });
});
