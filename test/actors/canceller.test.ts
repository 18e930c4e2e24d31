import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

describe('cancelling a running job', () => {
  const t = useNodes();

  async function runningOn(
    node: { show(jid: string): Promise<{ state: string; node?: string } | undefined> },
    jid: string,
  ) {
    return waitFor(
      async () => {
        const shown = await node.show(jid);
        return shown?.state === 'running' && shown;
      },
      5000,
      `job ${jid} running`,
    );
  }

  it('terminates the job on another node and files it in the dead set as cancelled', async () => {
    const a = await t.start();
    const b = await t.start({ queues: [] });
    const jid = await a.enqueue('default', 'Spin', []);
    expect((await runningOn(a, jid)).node).to.equal(a.node.ctx.config.nodeId);
    // Asked from node b, which does not run it.
    expect(await b.cancel(jid)).to.equal(true);
    const dead = await a.show(jid);
    expect(dead).to.include({ state: 'dead' });
    expect(dead!.job).to.include({ error_class: 'JobCancelledError', error_message: 'cancelled' });
    expect(await t.redis.llen(t.keys.backup(a.node.ctx.config.nodeId, 'default'))).to.equal(0);
    // The node goes on with new jobs on a fresh thread.
    await a.enqueue('default', 'Record', [t.url, t.out('after'), 1]);
    await t.waitForRecords(t.out('after'), 1);
  });

  it('runs the other jobs that shared its thread again, without counting a failure', async () => {
    const node = await t.start({ threads: 1, concurrency: 5 });
    const spin = await node.enqueue('default', 'Spin', []);
    await runningOn(node, spin);
    const others = await node.enqueueAll(
      Array.from({ length: 3 }, (_, i) => ({
        queue: 'default',
        class: 'Record',
        args: [t.url, t.out('others'), i, 300],
      })),
    );
    await Promise.all(others.map((jid) => runningOn(node, jid)));
    expect(await node.cancel(spin)).to.equal(true);
    const records = await t.waitForRecords(t.out('others'), 3, 10_000);
    expect(records.map((r) => r.jid).sort()).to.deep.equal([...others].sort());
    expect(records.every((r) => r.retryCount === undefined || r.retryCount === 0)).to.equal(true);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(1);
  });

  it('cancels a job that runs with a timeout (on a thread of its own)', async () => {
    const node = await t.start({ jobTimeout: 60_000 });
    const jid = await node.enqueue('default', 'Spin', []);
    await runningOn(node, jid);
    expect(await node.cancel(jid)).to.equal(true);
    expect((await node.show(jid))!.job).to.include({ error_class: 'JobCancelledError' });
  });

  it('says false for a job that is not running', async () => {
    const node = await t.start();
    await node.pause('default', 'out');
    const queued = await node.enqueue('default', 'Record', [t.url, t.out('q'), 1]);
    expect(await node.cancel(queued)).to.equal(false);
    expect(await node.cancel('no-such-jid')).to.equal(false);
    expect((await node.show(queued))!.state).to.equal('queued');
  });

  it('cancels an at-most-once job, which runs off its backup list', async () => {
    const node = await t.start();
    const jid = await node.enqueue('default', 'Spin', [], { atMostOnce: true });
    // Off its backup list, its index entry says it is taken by this node.
    await waitFor(
      async () => (await t.redis.hget(t.keys.jobIndex('default'), jid))?.includes('\ttaken\t'),
      5000,
      'the job taken',
    );
    expect(await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))).to.equal(0);
    expect(await node.cancel(jid)).to.equal(true);
    expect((await node.show(jid))!.job).to.include({ error_class: 'JobCancelledError' });
  });
});
