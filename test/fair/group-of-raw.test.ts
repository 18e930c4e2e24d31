// How a fetch of a fair queue reads a raw job's group (_fair.lua, nexq_group_of): it skips the JSON
// decode of a job whose text cannot name a group, and still finds a group a foreign producer wrote
// with an escaped key, or a job that has "group" only in its arguments.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { fetchQueueOf } from '../support/fetch-queue';

describe("a fair queue's fetch reading a raw job's group", () => {
  let redis: Redis;

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
  });
  afterEach(() => redis.quit());

  it('puts each job in its group: an escaped key names one, "group" in the arguments does not', async () => {
    const keys = new Keys(freshNamespace());
    const queue = fetchQueueOf(keys, { fair: keys.fair('q') });
    const escaped = (jid: string) => `{"jid":"${jid}","class":"X","args":[],"queue":"q","gro\\u0075p":"t1"}`;
    const inArgs = JSON.stringify({ jid: 'a', class: 'X', args: ['group', { group: 'no' }], queue: 'q' });
    const plain = JSON.stringify({ jid: 'p', class: 'X', args: [], queue: 'q' });
    // Oldest first: two of t1, then the others.
    await redis.lpush(queue.queueKey, escaped('e1'), escaped('e2'), inArgs, plain);
    const fetched = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(fetched.jobs).to.deep.equal([[escaped('e1')]]);
    expect(await redis.hgetall(keys.fair('q').groups)).to.deep.equal({ t1: '1', '': '2' });
    expect(await redis.lrange(keys.fair('q').ring, 0, -1)).to.deep.equal(['', 't1']);
  });
});
