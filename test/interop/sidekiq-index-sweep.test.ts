// A mixed fleet's job index stays bounded: jobs nexq enqueued and a real Sidekiq ran leave no
// "queued" entries behind once a nexq node's reaper swept the index (issue #31, 6a).
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';
import { SidekiqServer, useSidekiqRedis } from './support';

describe('Sidekiq interop: the job index in a mixed fleet', function () {
  this.timeout(90_000);
  const redis = useSidekiqRedis();
  const t = useNodes({ url: () => redis.url, namespace: '' });

  it('forgets the entries of the jobs Sidekiq ran and keeps those of the jobs still waiting', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const ran = await producer.enqueueAll(
      Array.from({ length: 30 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('rb'), i] })),
    );
    const waiting = await producer.enqueueAll(
      Array.from({ length: 3 }, (_, i) => ({ queue: 'later', class: 'Record', args: [t.url, t.out('later'), i] })),
    );
    const index = t.keys.jobIndex('default');
    expect(await t.redis.hlen(index)).to.equal(33);

    const sidekiq = SidekiqServer.start(redis.url, ['default']);
    try {
      await waitFor(async () => (await t.redis.llen(t.out('rb'))) >= 30, 30_000, 'Sidekiq to run 30 jobs').catch(
        (err: unknown) => {
          throw new Error(`${(err as Error).message}; sidekiq said: ${sidekiq.output.slice(-1000)}`);
        },
      );
    } finally {
      await sidekiq.stop();
    }
    // Sidekiq told the index nothing: every job it ran still says queued.
    const stale = await t.redis.hmget(index, ...ran);
    expect(stale.every((entry) => entry === '0\tqueued\tdefault')).to.equal(true);

    // A nexq node serving neither queue: its reaper sweeps the index on its first round.
    await t.start({ queues: [{ name: 'elsewhere' }], nodeCheckInterval: 1 });
    await waitFor(async () => (await t.redis.hlen(index)) === 3, 15_000, 'the stale entries swept');
    expect(Object.keys(await t.redis.hgetall(index)).sort()).to.deep.equal([...waiting].sort());
    expect(await t.redis.llen(t.keys.queue('later'))).to.equal(3);
  });
});
