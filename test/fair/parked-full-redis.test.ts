// A fair fetch on a full Redis (maxmemory, noeviction): a parked group that has room again goes
// back into the ring and its job is taken, because the fetch's first write removes (the head of the
// parked list) before it adds (the ring): Redis refuses a script's adds only until its first write.
import { expect } from 'chai';
import { fetchQueueOf } from '../support/fetch-queue';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs } from '../../src/redis/fetch-script';
import { RedisServer } from '../support/redis-server';

describe('a fair fetch on a full Redis', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let redis: Redis;
  before(async () => void (server = await RedisServer.start()));
  after(async () => server.stop());
  beforeEach(() => void (redis = defineScripts(new Redis(server.url))));
  afterEach(async () => {
    await redis.config('SET', 'maxmemory', '0');
    await redis.flushall();
    await redis.quit();
  });

  it('puts a parked group with room back in the ring and takes its job', async () => {
    const keys = new Keys('full');
    const queue = fetchQueueOf(keys, { fair: keys.fair('q'), groupLimit: 1 });
    const job = JSON.stringify({ jid: 'j1', class: 'X', args: [], queue: 'q', group: 'g' });
    await redis.lpush(queue.queueKey, job);
    await redis.hset(keys.groupRunning('q', 'g'), 'n2', '1');
    expect((await fetchJobs(redis, keys, 'n1', [queue])).jobs).to.deep.equal([[]]);
    expect(await redis.lrange(keys.fair('q').parked, 0, -1)).to.deep.equal(['g']);

    // Redis fills up (4 MB of other values, maxmemory 1 MB below what it uses); g's slot frees.
    for (let i = 0; i < 16; i++) await redis.set(`filler:${i}`, 'x'.repeat(256 * 1024));
    const used = Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))![1]);
    await redis.config('SET', 'maxmemory', String(used - 1024 * 1024), 'maxmemory-policy', 'noeviction');
    const refused = await redis.set('one-more', 'x').then(
      () => 'written',
      (err: unknown) => (err as Error).message,
    );
    expect(refused).to.match(/^OOM/);
    await redis.hdel(keys.groupRunning('q', 'g'), 'n2');

    const fetched = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[job]]);
    expect(await redis.lrange(queue.backupKey, 0, -1)).to.deep.equal([job]);
  });
});
