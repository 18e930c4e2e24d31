// Times no date can hold (past year 275760): a producer's enqueueIn is refused before anything is
// written; one another producer wrote, or a handler's backoff chose, is kept as it is and shown as
// unknown, and never breaks a listing, a job's view or the settle of the job that chose it.
import { expect } from 'chai';
import { InvalidJobError } from '../../src/job/job';
import { setJobs } from '../../src/admin/listing';
import { onlyEntry } from '../support/sets';
import { useNodes, waitFor } from '../support/node';

describe('times past any date', () => {
  const t = useNodes();

  it('refuses an enqueueIn due past any date, writing nothing', async () => {
    const node = await t.start();
    const refused = await node.enqueueIn('default', 1e20, 'Record', []).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(InvalidJobError);
    expect((refused as Error).message).to.match(/past the latest time a date can hold/);
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
  });

  it('lists and shows a scheduled job another producer put past any date', async () => {
    const node = await t.start();
    const soon = await node.enqueueIn('default', 3600, 'Record', []);
    // As Sidekiq's perform_in(1e20) writes it: the score is the due time.
    await t.redis.zadd(
      t.keys.schedule('default'),
      1e20,
      JSON.stringify({ jid: 'far', class: 'Record', args: [], queue: 'default', created_at: 1e20 }),
    );
    await t.redis.hset(t.keys.jobIndex('default'), 'far', '0\tschedule\t1e+20');
    const listed = await setJobs(node.node.ctx, 'schedule', 10);
    expect(listed.map((j) => j.jid).sort()).to.deep.equal(['far', soon].sort());
    expect(listed.find((j) => j.jid === 'far')?.at).to.equal(null);
    const shown = await node.show('far');
    expect(shown?.state).to.equal('schedule');
  });

  it('files a failure whose backoff chose 1e20 s in retry, and goes on running jobs', async () => {
    const node = await t.start({ nodeId: 'n1' });
    const key = t.out('forever');
    await t.redis.sadd(t.keys.queues, 'default');
    await t.redis.lpush(
      t.keys.queue('default'),
      JSON.stringify({
        queue: 'default',
        retry: true,
        class: 'RetryFunction',
        args: [t.url, key, 'forever'],
        jid: 'f',
      }),
    );
    const { job, score } = await onlyEntry(t, t.keys.retry('default'));
    expect(job).to.include({ jid: 'f', error_class: 'PolicyError' });
    expect(score).to.be.greaterThan(1e19);
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 5000, 'an empty backup');
    const next = await node.enqueue('default', 'Record', [t.url, t.out('next'), 1]);
    await t.waitForRecords(t.out('next'));
    expect(next).to.be.a('string');
  });
});
