// Everything else holds for grouped jobs in a fair queue: unique, ttl, cancel, batches, nexq/testing.
import { expect } from 'chai';
import { useNodes, sleep, waitFor } from '../support/node';
import { createTestNexq } from '../../src/testing';
import { InvalidJobError } from '../../src/job/job';
import { jobsDir } from '../testing/support';

describe('grouped jobs in a fair queue', () => {
  const t = useNodes();
  const fair = { queues: [{ name: 'default', concurrency: 2, fair: true }] };

  it('keep a unique lock: a second enqueue resolves to the first jid, and the lock goes once it ran', async () => {
    const out = t.out('unique');
    const node = await t.start({ mode: 'enqueuer' });
    const options = { group: 'acme', unique: { for: 60 } };
    const first = await node.enqueue('default', 'Record', [t.url, out, 1], options);
    expect(await node.enqueue('default', 'Record', [t.url, out, 1], options)).to.equal(first);
    await t.start(fair);
    await t.waitForRecords(out, 1);
    await waitFor(async () => (await t.redis.keys(`${t.ns}*nexq:unique*`)).length === 0, 5000, 'the lock released');
    expect(await t.redis.llen(out)).to.equal(1);
  });

  it('expire past their ttl into the dead set, keeping their group', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.enqueue('default', 'Record', [t.url, t.out('never'), 1], { group: 'acme', ttl: 0.2 });
    await sleep(1200); // past the ttl, by whole seconds of the job's timestamps
    await t.start(fair);
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 8000, 'the job dead as expired');
    const [dead] = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    expect(JSON.parse(dead).group).to.equal('acme');
    expect(await t.redis.llen(t.out('never'))).to.equal(0);
  });

  it('are cancelled while they run, into the dead set with their group', async () => {
    const node = await t.start(fair);
    const jid = await node.enqueue('default', 'Gate', [t.url, t.out('gate')], { group: 'acme' });
    await waitFor(
      async () => (await t.redis.hget(t.keys.jobIndex('default'), jid))?.includes('running'),
      5000,
      'running',
    );
    expect(await node.cancel(jid)).to.equal(true);
    const [dead] = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    expect(JSON.parse(dead)).to.include({ jid, group: 'acme', error_class: 'JobCancelledError' });
  });

  it('go into batches with their group, and run by group', async () => {
    const out = t.out('batch');
    const node = await t.start(fair);
    const batch = node.batch();
    await batch.jobs(async () => {
      await batch.enqueue('default', 'Record', [t.url, out, 'a'], { group: 'a' });
      await batch.enqueue('default', 'Record', [t.url, out, 'b'], { group: 'b' });
    });
    expect((await t.waitForRecords(out, 2)).map((r: { value: string }) => r.value).sort()).to.deep.equal(['a', 'b']);
    await waitFor(async () => (await batch.status())?.pending === 0, 5000, 'the batch done');
  });

  it('are recorded by nexq/testing with their group, and a bad group is refused there too', async () => {
    const nexq = createTestNexq({ mode: 'fake', jobsDir });
    await nexq.enqueue('default', 'Push', [1], { group: 'tenant-1' });
    expect(nexq.jobs('default')[0].payload.group).to.equal('tenant-1');
    const refused = await nexq.enqueue('default', 'Push', [], { group: '' }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(InvalidJobError);
  });
});
