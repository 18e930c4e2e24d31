// Jobs handed to a thread together: each is settled as it finishes, not when the batch does.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';

describe('jobs run together on one thread', () => {
  const t = useNodes();

  it('acks a job that finished while another of its batch still runs', async () => {
    const gate = t.out('gate');
    const out = t.out('fast');
    // Both queued before the node starts: one fetch takes them, and the one thread gets them together.
    await t.redis.lpush(
      t.keys.queue('default'),
      JSON.stringify({ class: 'Gate', args: [t.url, gate], jid: 'slow', queue: 'default' }),
    );
    await t.redis.lpush(
      t.keys.queue('default'),
      JSON.stringify({ class: 'Record', args: [t.url, out, 'fast'], jid: 'fast', queue: 'default' }),
    );
    await t.start({ nodeId: 'n1', threads: 1 });
    await t.waitForRecords(out, 1);
    const backup = t.keys.backup('n1', 'default');
    const left = await waitFor(
      async () => {
        const entries = await t.redis.lrange(backup, 0, -1);
        return entries.length === 1 && entries;
      },
      5000,
      'the fast job acked while the slow one waits',
    );
    expect(JSON.parse(left[0]).jid).to.equal('slow');
    await t.redis.rpush(gate, 'open');
    await waitFor(async () => (await t.redis.llen(backup)) === 0, 5000, 'the slow job acked');
  });

  it('settles jobs that ended in the same turn when one outcome cannot be posted as it is', async () => {
    // Both sync and handed over together: they end in one turn, and their outcomes go in one message.
    for (const [jid, args] of [
      ['odd', ['throw']],
      ['fine', []],
    ] as const)
      await t.redis.lpush(
        t.keys.queue('default'),
        JSON.stringify({ class: 'OddError', args, jid, queue: 'default', retry: false }),
      );
    await t.start({ nodeId: 'n1', threads: 1 });
    const dead = await waitFor(
      async () => {
        const entries = await t.redis.zrange(t.keys.dead('default'), 0, -1);
        return entries.length > 0 && entries;
      },
      5000,
      'the odd job in dead',
    );
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 5000, 'both settled');
    expect(dead.map((raw) => JSON.parse(raw) as { jid: string; error_class: string })).to.deep.equal([
      { ...JSON.parse(dead[0]), jid: 'odd', error_class: 'Symbol(odd)' },
    ]);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('fails only the job whose error cannot be read, not the jobs that ran beside it', async () => {
    for (const [jid, args] of [
      ['unreadable', ['unreadable']],
      ['fine', []],
    ] as const)
      await t.redis.lpush(
        t.keys.queue('default'),
        JSON.stringify({ class: 'OddError', args, jid, queue: 'default', retry: false }),
      );
    await t.start({ nodeId: 'n1', threads: 1 });
    const dead = await waitFor(
      async () => {
        const entries = await t.redis.zrange(t.keys.dead('default'), 0, -1);
        return entries.length > 0 && entries;
      },
      5000,
      'the unreadable job in dead',
    );
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 5000, 'both settled');
    const filed = dead.map((raw) => JSON.parse(raw) as { jid: string; error_class: string });
    expect(filed.map((job) => [job.jid, job.error_class])).to.deep.equal([['unreadable', 'UnreadableError']]);
  });
});
