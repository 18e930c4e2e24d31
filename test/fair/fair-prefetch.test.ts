// Jobs a fair queue takes ahead of free slots (prefetch), fetch by fetch: a node with every slot busy
// asks for its room ahead alone (no job wanted now), as it does of a plain queue. The fair fetch must
// take those jobs in turn from a backlog, and say 'short' when the backlog is too short for any, so
// the node stops asking until a slot frees (it said 'more' having taken nothing, and the node asked
// again at once, in a loop of empty fetches).
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { fetchQueueOf } from '../support/fetch-queue';

describe('a fair queue fetched for its room ahead of free slots', () => {
  let redis: Redis;
  let keys: Keys;
  let queue: FetchQueue;
  const raw = (jid: string, group: string) => JSON.stringify({ jid, class: 'X', args: [], queue: 'q', group });
  // Two groups, interleaved in the inbox: a then b, each `each` jobs.
  const fill = (each: number) =>
    redis.lpush(
      queue.queueKey,
      ...Array.from({ length: each }, (_, i) => [raw(`a${i}`, 'a'), raw(`b${i}`, 'b')]).flat(),
    );

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
    keys = new Keys(freshNamespace());
    queue = fetchQueueOf(keys, { fair: keys.fair('q'), count: 0, ahead: 6 });
  });
  afterEach(() => redis.quit());

  it('takes the room ahead in turn from a backlog, with no slot free', async () => {
    await fill(100);
    const got = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(got.jobs[0]).to.have.length(6);
    // Both groups served, each from its oldest job on, in order.
    const jids: string[] = got.jobs[0].map((job) => JSON.parse(job).jid);
    for (const group of ['a', 'b']) {
      const mine = jids.filter((jid) => jid.startsWith(group));
      expect(mine).to.not.be.empty;
      expect(mine).to.deep.equal(mine.map((_, i) => `${group}${i}`));
    }
    expect(got.states).to.deep.equal(['more']);
    expect(await redis.llen(queue.backupKey)).to.equal(6);
  });

  it("takes as many ahead as leave a backlog of 100 behind them, in turn, and says 'short'", async () => {
    await fill(60);
    const got = await fetchJobs(redis, keys, 'n1', [{ ...queue, ahead: 64 }]);
    expect(got.jobs[0]).to.have.length(20);
    const groups = new Set(got.jobs[0].map((job) => JSON.parse(job).group));
    expect([...groups].sort(), 'both groups served').to.deep.equal(['a', 'b']);
    expect(got.states).to.deep.equal(['short']);
    expect(await redis.llen(queue.backupKey)).to.equal(20);
  });

  it("says 'short', taking nothing, when fewer than a backlog's worth wait; 'empty' when none does", async () => {
    await fill(20);
    const short = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(short.jobs).to.deep.equal([[]]);
    expect(short.states).to.deep.equal(['short']);
    // With a slot free the job wanted is taken, none ahead, and the node is told the same.
    const one = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 1 }]);
    expect(one.jobs[0]).to.deep.equal([raw('a0', 'a')]);
    expect(one.states).to.deep.equal(['short']);
    await redis.del(queue.queueKey, ...Object.values(keys.fair('q')));
    expect((await fetchJobs(redis, keys, 'n1', [queue])).states).to.deep.equal(['empty']);
  });

  it('takes nothing ahead while a pause holds the queue', async () => {
    await fill(100);
    // A handler's pause (throttle.lua's mark in the queue's rate key) for the next minute.
    const [seconds] = await redis.time();
    await redis.zadd(queue.rateKey, -(seconds * 1000 + 60_000), 'pause');
    const got = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(got.jobs).to.deep.equal([[]]);
    expect(await redis.llen(queue.backupKey)).to.equal(0);
  });
});
