// The job index's sweep forgets a "queued" entry only when its job is in none of the keys it could
// be in, and only while the entry is still the one it was seen under.
import { expect } from 'chai';
import { IndexSweep } from '../../src/redis/index-sweep';
import { defineScripts, runScript } from '../../src/redis/scripts';
import { useNodes } from '../support/node';

describe('the job index sweep', () => {
  const t = useNodes();
  const job = (jid: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ class: 'Record', queue: 'default', args: [], jid, ...extra });
  const queued = '0\tqueued\tdefault';

  /** Index entries of queue default, a known queue (the per-queue layout sweeps known queues' indexes). */
  async function index(entries: Record<string, string>): Promise<void> {
    await t.redis.sadd(t.keys.queues, 'default');
    await t.redis.hset(t.keys.jobIndex('default'), entries);
  }

  it('keeps the entries of jobs in their queue or in the schedule, retry and dead sets, and forgets the others', async () => {
    await t.redis.lpush(t.keys.queue('default'), job('inqueue'));
    // A "jid" in its arguments comes before the job's own.
    await t.redis.lpush(t.keys.queue('default'), job('nested-after', { args: [{ jid: 'inner' }] }));
    await t.redis.zadd(t.keys.schedule('default'), 1, job('scheduled'));
    // As Sidekiq files a failure: the payload rewritten with its error fields.
    await t.redis.zadd(t.keys.retry('default'), 2, job('retrying', { error_class: 'E', retry_count: 0 }));
    await t.redis.zadd(t.keys.dead('default'), 3, job('dead'));
    await index({
      inqueue: queued,
      'nested-after': queued,
      scheduled: queued,
      retrying: queued,
      dead: queued,
      gone: queued,
      'gone-too': '2\tqueued\tdefault',
      running: '1\trunning\tdefault\tnode-a',
    });
    const result = await new IndexSweep(defineScripts(t.redis), t.keys).round();
    expect(result).to.deep.equal({ forgotten: 2, skipped: [] });
    expect(Object.keys(await t.redis.hgetall(t.keys.jobIndex('default'))).sort()).to.deep.equal([
      'dead',
      'inqueue',
      'nested-after',
      'retrying',
      'running',
      'scheduled',
    ]);
  });

  it('reads no queue longer than its limit, and forgets nothing of it then', async () => {
    await t.redis.lpush(t.keys.queue('default'), job('a'), job('b'), job('c'));
    await index({ a: queued, b: queued, c: queued, gone: queued });
    const result = await new IndexSweep(defineScripts(t.redis), t.keys, 2).round();
    expect(result).to.deep.equal({ forgotten: 0, skipped: ['default'] });
    expect(await t.redis.hlen(t.keys.jobIndex('default'))).to.equal(4);
    expect((await new IndexSweep(defineScripts(t.redis), t.keys, 3).round()).forgotten).to.equal(1);
  });

  it('keeps an entry that changed since it was read (its job moved meanwhile)', async () => {
    await index({ moved: '1\tqueued\tdefault' });
    const sets = (['schedule', 'retry', 'dead'] as const).map((set) => t.keys.jobSet(set, 'default'));
    const forgotten = await runScript(
      defineScripts(t.redis),
      'sweep-index',
      [t.keys.jobIndex('default'), t.keys.queue('default'), ...sets],
      [100, 'moved', queued],
    );
    expect(forgotten).to.equal(0);
    expect(await t.redis.hget(t.keys.jobIndex('default'), 'moved')).to.equal('1\tqueued\tdefault');
  });
});
