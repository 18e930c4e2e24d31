// Acks sent together: each resolves on its own, and one broken backup key fails that ack alone;
// many acks of one backup list leave it in a few commands, the list otherwise as it was.
import { expect } from 'chai';
import Redis from 'ioredis';
import { AckBatcher } from '../../src/redis/settle-scripts';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

describe('AckBatcher', () => {
  let redis: Redis;
  let keys: Keys;

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
    keys = new Keys(freshNamespace());
  });

  afterEach(() => redis.quit());

  it('acks the jobs of one turn in one call, each resolving on its own, and forgets them in the index in one command', async () => {
    const job = (n: number) => JSON.stringify({ jid: `j${n}`, class: 'X', args: [n] });
    const backup = keys.backup('n1', 'default');
    await redis.rpush(backup, job(1), job(2), job(3));
    await redis.hset(
      keys.jobIndex('default'),
      'j1',
      '1\trunning\tdefault\tn1',
      'j2',
      '1\trunning\tdefault\tn1',
      'j3',
      '1\trunning\tdefault\tn1',
    );
    // Script calls: EVALSHA, or EVAL when Redis did not have the script yet.
    const calls = async (pattern: RegExp) =>
      [...(await redis.info('commandstats')).matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
    const scriptCalls = () => calls(/cmdstat_eval(?:sha)?:calls=(\d+)/g);
    const hdelCalls = () => calls(/cmdstat_hdel:calls=(\d+)/g);
    const before = await scriptCalls();
    const hdelsBefore = await hdelCalls();
    const batcher = new AckBatcher(() => redis, keys);
    const results = await Promise.all([
      batcher.ack('default', backup, job(1), 'j1'),
      batcher.ack('default', backup, job(2), 'j2'),
      batcher.ack('default', backup, job(9), 'j9'),
    ]);
    const after = await scriptCalls();
    expect(results).to.deep.equal([true, true, false]);
    expect(after - before).to.equal(1);
    // The acked jobs leave the index in one HDEL for the batch, not one each.
    expect((await hdelCalls()) - hdelsBefore).to.equal(1);
    expect(await redis.lrange(backup, 0, -1)).to.deep.equal([job(3)]);
    expect(await redis.hkeys(keys.jobIndex('default'))).to.deep.equal(['j3']);
  });

  it('fails only the ack whose backup key is broken', async () => {
    const good = keys.backup('n1', 'good');
    const broken = keys.backup('n1', 'broken');
    await redis.rpush(good, '{"jid":"a"}');
    await redis.set(broken, 'not a list');
    const batcher = new AckBatcher(() => redis, keys);
    const [ok, failed] = await Promise.allSettled([
      batcher.ack('good', good, '{"jid":"a"}', 'a'),
      batcher.ack('broken', broken, '{"jid":"b"}', 'b'),
    ]);
    expect(ok).to.deep.equal({ status: 'fulfilled', value: true });
    expect(failed.status).to.equal('rejected');
    expect(String((failed as PromiseRejectedResult).reason.message)).to.match(/WRONGTYPE/);
    expect(await redis.llen(good)).to.equal(0);
  });

  describe('many acks of one backup list', () => {
    const job = (n: number) => JSON.stringify({ jid: `j${n}`, class: 'X', args: [n] });
    const backup = () => keys.backup('n1', 'default');
    /** The backup list as the fetch leaves it: the newest job at the head, j1 (the oldest) at the tail. */
    const fill = async (count: number) => {
      for (let n = 1; n <= count; n++) await redis.lpush(backup(), job(n));
      for (let n = 1; n <= count; n++) await redis.hset(keys.jobIndex('default'), `j${n}`, '1\trunning\tdefault\tn1');
    };
    const ackAll = (numbers: number[]) => {
      const batcher = new AckBatcher(() => redis, keys);
      return Promise.all(numbers.map((n) => batcher.ack('default', backup(), job(n), `j${n}`)));
    };
    const commands = async () =>
      new Map(
        [...(await redis.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]),
      );
    const list = async () => (await redis.lrange(backup(), 0, -1)).map((raw) => JSON.parse(raw).args[0]);

    it('cuts them out of its tail in a few commands, whatever their number, the others kept in order', async () => {
      await fill(10);
      const before = await commands();
      const results = await ackAll([1, 3, 4, 7, 9, 2]);
      const after = await commands();
      const ran = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      expect(results).to.deep.equal([true, true, true, true, true, true]);
      expect(await list()).to.deep.equal([10, 8, 6, 5]);
      expect([ran('lrem'), ran('lrange'), ran('ltrim'), ran('rpush')]).to.deep.equal([0, 1, 1, 1]);
      expect((await redis.hkeys(keys.jobIndex('default'))).sort()).to.deep.equal(['j10', 'j5', 'j6', 'j8']);
    });

    it('empties the list when they are all of it, and says false for a job that is not there', async () => {
      await fill(4);
      expect(await ackAll([2, 4, 11, 1, 3])).to.deep.equal([true, true, false, true, true]);
      expect(await redis.exists(backup())).to.equal(0);
    });

    it('takes a job beyond the window it reads off with LREM', async () => {
      // 3 acks read a window of the 28 oldest entries: the newest of 40 lies beyond it.
      await fill(40);
      const lrems = async () => (await commands()).get('lrem') ?? 0;
      const before = await lrems();
      expect(await ackAll([40, 1, 2])).to.deep.equal([true, true, true]);
      expect((await lrems()) - before).to.equal(1);
      expect(await list()).to.deep.equal(Array.from({ length: 37 }, (_, k) => 39 - k));
    });

    it('takes off as many copies of one job as were acked, and no more', async () => {
      await fill(3);
      await redis.rpush(backup(), job(2));
      expect(await ackAll([2, 2, 2, 3])).to.deep.equal([true, true, false, true]);
      expect(await list()).to.deep.equal([1]);
    });

    it('fails each of them when the backup key is broken, and acks the others', async () => {
      await redis.set(backup(), 'not a list');
      const good = keys.backup('n1', 'good');
      await redis.rpush(good, job(5));
      const batcher = new AckBatcher(() => redis, keys);
      const settled = await Promise.allSettled(
        [1, 2, 3]
          .map((n) => batcher.ack('default', backup(), job(n), `j${n}`))
          .concat(batcher.ack('good', good, job(5), 'j5')),
      );
      expect(
        settled.map((s) => (s.status === 'fulfilled' ? s.value : /WRONGTYPE/.test(String(s.reason.message)))),
      ).to.deep.equal([true, true, true, true]);
      expect(settled.slice(0, 3).every((s) => s.status === 'rejected')).to.equal(true);
      expect(await redis.exists(good)).to.equal(0);
      expect(await redis.get(backup())).to.equal('not a list');
    });
  });
});
