import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

describe('unique jobs', () => {
  const t = useNodes();

  it('resolves a duplicate enqueue to the first job, says it conflicted, and writes nothing', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const first = await producer.enqueueResult('default', 'Record', [t.url, 'k', 1], { unique: { for: 60 } });
    const second = await producer.enqueueResult('default', 'Record', [t.url, 'k', 1], { unique: { for: 60 } });
    expect(first.conflict).to.equal(false);
    expect(second).to.deep.equal({ jid: first.jid, conflict: true });
    expect(await producer.enqueue('default', 'Record', [t.url, 'k', 1], { unique: { for: 60 } })).to.equal(first.jid);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    const other = await producer.enqueueResult('default', 'Record', [t.url, 'k', 2], { unique: { for: 60 } });
    expect(other.conflict).to.equal(false); // other args, another job
  });

  it('keys uniqueness on unique.key when given', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const a = await producer.enqueueResult('default', 'Record', [1], { unique: { for: 60, key: 'user-7' } });
    const b = await producer.enqueueResult('default', 'Other', [2], { unique: { for: 60, key: 'user-7' } });
    expect(b).to.deep.equal({ jid: a.jid, conflict: true });
  });

  it("releases the lock with the ack when until is 'success' (the default)", async () => {
    const node = await t.start();
    const first = await node.enqueueResult('default', 'Record', [t.url, t.out('u'), 1], { unique: { for: 60 } });
    await t.waitForRecords(t.out('u'));
    await waitFor(async () => (await t.redis.keys(`${t.ns}:nexq:unique:*`)).length === 0, 5000, 'the lock released');
    const again = await node.enqueueResult('default', 'Record', [t.url, t.out('u'), 1], { unique: { for: 60 } });
    expect(again.conflict).to.equal(false);
    expect(again.jid).not.to.equal(first.jid);
  });

  it('keeps the lock of a failed job until it succeeds', async () => {
    const node = await t.start();
    await node.enqueueResult('default', 'Fail', [], { unique: { for: 60 } });
    await waitFor(() => t.redis.zcard(t.keys.retry('default')), 5000, 'the failure');
    expect((await node.enqueueResult('default', 'Fail', [], { unique: { for: 60 } })).conflict).to.equal(true);
  });

  it("releases the lock as the job starts when until is 'start'", async () => {
    const node = await t.start();
    await node.enqueueResult('default', 'Record', [t.url, t.out('s'), 1, 1500], {
      unique: { for: 60, until: 'start' },
    });
    await waitFor(
      async () => (await t.redis.keys(`${t.ns}:nexq:unique:*`)).length === 0,
      5000,
      'the lock released at start',
    );
    expect(await t.redis.llen(t.out('s'))).to.equal(0); // still running
    expect(
      (
        await node.enqueueResult('default', 'Record', [t.url, t.out('s'), 1, 1500], {
          unique: { for: 60, until: 'start' },
        })
      ).conflict,
    ).to.equal(false);
  });

  it("keeps the lock after success until it expires when until is 'expiry'", async () => {
    const node = await t.start();
    await node.enqueueResult('default', 'Record', [t.url, t.out('e'), 1], { unique: { for: 2, until: 'expiry' } });
    await t.waitForRecords(t.out('e'));
    expect(
      (await node.enqueueResult('default', 'Record', [t.url, t.out('e'), 1], { unique: { for: 2, until: 'expiry' } }))
        .conflict,
    ).to.equal(true);
    await waitFor(async () => (await t.redis.keys(`${t.ns}:nexq:unique:*`)).length === 0, 5000, 'the lock to expire');
    expect(
      (await node.enqueueResult('default', 'Record', [t.url, t.out('e'), 1], { unique: { for: 2, until: 'expiry' } }))
        .conflict,
    ).to.equal(false);
  });
});
