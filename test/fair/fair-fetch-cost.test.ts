// What one fetch of a fair queue reads: the groups it passes over at their limits, at most 200 in a
// row, never every group. A group at its groupConcurrency leaves the ring for the parked list, so
// later fetches do not walk it again, and comes back once a fetch finds room in it again.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { fetchQueueOf } from '../support/fetch-queue';

describe('a fetch of a fair queue with many groups at their limit', () => {
  let redis: Redis;
  let keys: Keys;
  let queue: FetchQueue;
  const raw = (group: string) => JSON.stringify({ jid: group, class: 'X', args: [], queue: 'q', group });

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
    keys = new Keys(freshNamespace());
    queue = fetchQueueOf(keys, { fair: keys.fair('q'), groupLimit: 1 });
  });
  afterEach(() => redis.quit());

  /** 300 groups, each one job waiting and one running on another node (full), then one with room. */
  async function fullGroupsThenFree(limit = 1): Promise<string[]> {
    queue.groupLimit = limit;
    const full = Array.from({ length: 300 }, (_, g) => `full-${g}`);
    await redis.lpush(queue.queueKey, ...[...full, 'free'].map(raw));
    for (const group of full) await redis.hset(keys.groupRunning('q', group), 'n2', String(limit));
    return full;
  }

  it('parks at most 200 full groups per fetch, fetches again at once, and reaches the one with room', async () => {
    const full = await fullGroupsThenFree();
    const first = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(first.jobs).to.deep.equal([[]]);
    // It stopped with more of the ring to see: the node fetches again now, not a poll later.
    expect(first.states).to.deep.equal(['more']);
    // The 200 groups passed over left the ring for the parked list: 'free' is within reach now.
    expect(await redis.lrange(keys.fair('q').ring, 0, -1)).to.deep.equal([...full.slice(200), 'free']);
    expect(await redis.llen(keys.fair('q').parked)).to.equal(200);
    const second = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(second.jobs).to.deep.equal([[raw('free')]]);
    expect(await redis.hget(keys.groupRunning('q', 'free'), 'n1')).to.equal('1');
    // Every full group is parked once; the ring is empty; a fetch with nothing to take polls later.
    expect(await redis.llen(keys.fair('q').ring)).to.equal(0);
    // ('free' had one job: it left the ring as any emptied group does.)
    expect((await redis.lrange(keys.fair('q').parked, 0, -1)).sort()).to.deep.equal([...full].sort());
    expect((await fetchJobs(redis, keys, 'n1', [queue])).states).to.deep.equal(['limited']);
  });

  it('puts a parked group back in the ring once its slot is given back, whoever gives it back', async () => {
    const full = await fullGroupsThenFree();
    await fetchJobs(redis, keys, 'n1', [queue]);
    await fetchJobs(redis, keys, 'n1', [queue]);
    // A slot dropped by hand (or by a settle, or a dead node's recovery): the next fetch takes the job.
    await redis.hdel(keys.groupRunning('q', full[250]), 'n2');
    const third = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(third.jobs).to.deep.equal([[raw(full[250])]]);
    // Its last job taken, it is parked no more; the other full groups stay parked, each once.
    const parked = await redis.lrange(keys.fair('q').parked, 0, -1);
    expect(parked).to.not.include(full[250]);
    expect(new Set(parked).size).to.equal(parked.length);
  });

  it('looks again at every parked group in turn: one far back in the list is found within a few fetches', async () => {
    const full = await fullGroupsThenFree();
    await fetchJobs(redis, keys, 'n1', [queue]);
    await fetchJobs(redis, keys, 'n1', [queue]);
    const parked = await redis.lrange(keys.fair('q').parked, 0, -1);
    const last = parked[parked.length - 1] === 'free' ? parked[parked.length - 2] : parked[parked.length - 1];
    expect(full).to.include(last);
    await redis.hdel(keys.groupRunning('q', last), 'n2');
    const taken: string[] = [];
    for (let fetch = 0; fetch < 3 && taken.length === 0; fetch++)
      taken.push(...(await fetchJobs(redis, keys, 'n1', [queue])).jobs[0]);
    expect(taken).to.deep.equal([raw(last)]);
  });

  it('drops a parked group whose jobs went, and never puts a group in the ring twice', async () => {
    await fullGroupsThenFree(3);
    await fetchJobs(redis, keys, 'n1', [queue]);
    await fetchJobs(redis, keys, 'n1', [queue]);
    const fair = keys.fair('q');
    // full-0's waiting job deleted as delete-job.lua does (count to 0), then two new ones fed: the
    // feed puts it in the ring while its parked entry is still there; then two of its slots free.
    const member = (await redis.zrangebylex(fair.jobs, '[full-0\0', '(full-0\x01'))[0];
    await redis.zrem(fair.jobs, member);
    await redis.hdel(fair.groups, 'full-0');
    await redis.lpush(queue.queueKey, raw('full-0'), raw('full-0'));
    await redis.hset(keys.groupRunning('q', 'full-0'), 'n2', '1');
    // The fetch looks at its parked entry (it has room) and takes one of its jobs: one left, so it
    // stays in the ring, once.
    const third = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(third.jobs).to.deep.equal([[raw('full-0')]]);
    expect(await redis.lrange(fair.ring, 0, -1)).to.deep.equal(['full-0']);
    expect(await redis.lrange(fair.parked, 0, -1)).to.not.include('full-0');
  });
});
