// What one fetch of a fair queue reads: the groups it passes over at their limits, at most 200 in a
// row, never every group; the ring turns past them so the next fetch goes on from there.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

describe('a fetch of a fair queue with many groups at their limit', () => {
  let redis: Redis;

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
  });
  afterEach(() => redis.quit());

  it('passes over at most 200 full groups per fetch, and reaches the one with room on a later fetch', async () => {
    const keys = new Keys(freshNamespace());
    const queue: FetchQueue = {
      name: 'q',
      queueKey: keys.queue('q'),
      backupKey: keys.backup('n1', 'q'),
      runningKey: keys.running('q'),
      rateKey: keys.rate('q'),
      count: 1,
      fair: keys.fair('q'),
      groupLimit: 1,
    };
    // 300 groups, each one job waiting and one running on another node (full), then one with room.
    const groups = [...Array.from({ length: 300 }, (_, g) => `full-${g}`), 'free'];
    const raw = (group: string) => JSON.stringify({ jid: group, class: 'X', args: [], queue: 'q', group });
    await redis.lpush(queue.queueKey, ...groups.map(raw));
    for (const group of groups.slice(0, -1)) await redis.hset(keys.groupRunning('q', group), 'n2', '1');

    const first = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(first.jobs).to.deep.equal([[]]);
    expect(first.states).to.deep.equal(['limited']);
    // The 200 groups passed over went to the ring's end: 'free' is within reach now.
    expect((await redis.lrange(keys.fair('q').ring, 0, 100)).indexOf('free')).to.equal(100);
    const second = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(second.jobs).to.deep.equal([[raw('free')]]);
    expect(await redis.hget(keys.groupRunning('q', 'free'), 'n1')).to.equal('1');
  });
});
