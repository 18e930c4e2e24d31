// `nexq position <jid>` and the position lines of `nexq show`, run as real `nexq` processes.
import { expect } from 'chai';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

describe('nexq position and show, for a waiting job', () => {
  const t = useNodes();
  const { cli, ok, json } = cliAgainst(() => t);

  it('prints the jobs ahead and the estimated start; --json is what position() returns', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const jids: string[] = [];
    for (let i = 0; i < 3; i++) jids.push(await producer.enqueue('default', 'Record', [i]));
    const last = jids[2];
    const shown = await ok(['show', last]);
    expect(shown).to.include(`${last}: queue default\n  ahead in queue default: 2\n`);
    expect(shown).to.include('  queue rate: unknown (no job of default ran in the last 5 minutes)\n');
    expect(shown).to.include('  estimated start: unknown\n');
    const api = JSON.parse(JSON.stringify(await producer.position(last)));
    expect(api).to.include({ state: 'queued', aheadInQueue: 2 });
    expect((await json(['show', last])).position).to.deep.equal(api);
    expect(await json(['position', last])).to.deep.equal(api);
    const text = await ok(['position', jids[0]]);
    expect(text.split('\n').slice(0, 2)).to.deep.equal([
      `${jids[0]}: waiting in queue default`,
      'ahead in queue default: 0',
    ]);
  });

  it("prints a fair queue's group and says the count is an estimate", async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueue('default', 'Sleep', [20_000], { group: 'acme' });
    const jids = [];
    for (const group of ['acme', 'other', 'acme'])
      jids.push(await producer.enqueue('default', 'Record', [], { group }));
    // A fair node's first fetch sorts the jobs into their groups and takes the Sleep: the ring is other, acme.
    await t.start({ queues: [{ name: 'default', concurrency: 1, fair: true }], shutdownTimeout: 50 });
    await waitFor(async () => (await t.redis.zcard(t.keys.fair('default').jobs)) === 3, 5000, 'three jobs in groups');
    const text = await ok(['position', jids[2]]);
    expect(text).to.include('ahead in queue default: ~2 (an estimate: groups take turns)\n');
    expect(text).to.include('ahead in group acme: 1\n');
    expect(await json(['position', jids[0]])).to.include({ group: 'acme', aheadInQueue: 1, estimate: true });
  });

  it('says where a job is when it is not waiting, and fails clearly for an unknown jid', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const later = await producer.enqueueIn('default', 3600, 'Record', []);
    expect(await ok(['position', later])).to.match(new RegExp(`^${later}: scheduled, to be enqueued at \\d{4}-`));
    expect(await json(['position', later])).to.include({ jid: later, state: 'schedule', queue: 'default' });
    // show gives no position for a job that is not waiting.
    expect(await json(['show', later])).not.to.have.property('position');
    const missing = await cli(['position', 'no-such-jid', '--json']);
    expect(missing.status).to.equal(1);
    expect(JSON.parse(missing.stderr).error).to.include({ code: 'JOB_NOT_FOUND' });
  });
});
