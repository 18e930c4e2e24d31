// Acks sent together: each resolves on its own, and one broken backup key fails that ack alone.
import { expect } from 'chai';
import Redis from 'ioredis';
import { AckBatcher } from '../../src/redis/ack-batcher';
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
    await redis.hset(keys.jobIndex('default'), 'j1', '1\trunning\tdefault\tn1', 'j2', '1\trunning\tdefault\tn1', 'j3', '1\trunning\tdefault\tn1');
    // Script calls: EVALSHA, or EVAL when Redis did not have the script yet.
    const calls = async (pattern: RegExp) => [...(await redis.info('commandstats')).matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
    const scriptCalls = () => calls(/cmdstat_eval(?:sha)?:calls=(\d+)/g);
    const hdelCalls = () => calls(/cmdstat_hdel:calls=(\d+)/g);
    const before = await scriptCalls();
    const hdelsBefore = await hdelCalls();
    const batcher = new AckBatcher(redis, keys);
    const results = await Promise.all([batcher.ack('default', backup, job(1), 'j1'), batcher.ack('default', backup, job(2), 'j2'), batcher.ack('default', backup, job(9), 'j9')]);
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
    const batcher = new AckBatcher(redis, keys);
    const [ok, failed] = await Promise.allSettled([batcher.ack('good', good, '{"jid":"a"}', 'a'), batcher.ack('broken', broken, '{"jid":"b"}', 'b')]);
    expect(ok).to.deep.equal({ status: 'fulfilled', value: true });
    expect(failed.status).to.equal('rejected');
    expect(String((failed as PromiseRejectedResult).reason.message)).to.match(/WRONGTYPE/);
    expect(await redis.llen(good)).to.equal(0);
  });
});
