// A fair queue whose waiting jobs are all of one group (a queue used without groups, issue 34's W2):
// its fetch takes that group's oldest jobs by their rank in the groups' sorted set. The jobs must
// come as the turns would give them, each once, and the group must leave every key as it empties;
// a group that comes with work meanwhile takes its turns; and where the sorted set holds a job the
// counts do not know of, the fetch takes its turn the usual way, leaving that job where it is.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { fetchQueueOf } from '../support/fetch-queue';

describe('a fetch of a fair queue holding one group', () => {
  let redis: Redis;
  let keys: Keys;
  let queue: FetchQueue;
  const raw = (jid: string, group?: string) =>
    JSON.stringify({ jid, class: 'X', args: [], queue: 'q', ...(group === undefined ? {} : { group }) });
  const enqueue = (jobs: string[]) => redis.lpush(queue.queueKey, ...jobs);

  beforeEach(() => {
    redis = defineScripts(new Redis(sharedRedis().url));
    keys = new Keys(freshNamespace());
    queue = fetchQueueOf(keys, { fair: keys.fair('q'), count: 7 });
  });
  afterEach(() => redis.quit());

  async function drain(): Promise<string[]> {
    const taken: string[] = [];
    for (let fetch = 0; fetch < 100; fetch++) {
      const got = await fetchJobs(redis, keys, 'n1', [queue]);
      taken.push(...got.jobs[0]);
      if (got.states[0] === 'empty') return taken;
    }
    throw new Error('the queue did not empty in 100 fetches');
  }

  for (const group of [undefined, 'acme']) {
    it(`takes ${group ? 'a named' : 'the default'} group's jobs oldest first, each once, and leaves no key of it behind`, async () => {
      const jobs = Array.from({ length: 50 }, (_, i) => raw(`j${i}`, group));
      await enqueue(jobs);
      const taken = await drain();
      expect(taken).to.deep.equal(jobs);
      // The backup list holds them as a plain fetch leaves them: the oldest deepest.
      expect(await redis.lrange(queue.backupKey, 0, -1)).to.deep.equal([...jobs].reverse());
      const f = keys.fair('q');
      expect(await redis.exists(f.jobs, f.groups, f.ring, f.parked, queue.queueKey)).to.equal(0);
      // Counted as started in this minute, as every fair fetch counts them.
      const [minuteKey] = await redis.keys(`${f.starts}:*`);
      expect(await redis.hget(minuteKey, group ?? '')).to.equal('50');
      // Indexed as running here, as any job fetched.
      expect(await redis.hget(keys.jobIndex('q'), 'j0')).to.match(/^1\trunning\tq\tn1$/);
    });
  }

  it('gives a group that comes with work its turns beside the one that was alone', async () => {
    await enqueue(Array.from({ length: 30 }, (_, i) => raw(`a${i}`, 'a')));
    queue.count = 5;
    const first = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(first.jobs[0]).to.deep.equal(Array.from({ length: 5 }, (_, i) => raw(`a${i}`, 'a')));
    await enqueue([raw('b0', 'b'), raw('b1', 'b')]);
    queue.count = 2;
    const second = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(second.jobs[0]).to.deep.equal([raw('a5', 'a'), raw('b0', 'b')]);
    const third = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(third.jobs[0]).to.deep.equal([raw('a6', 'a'), raw('b1', 'b')]);
    // 'b' emptied, 'a' is alone again: the rest in order.
    const rest = await drain();
    expect(rest).to.deep.equal(Array.from({ length: 23 }, (_, i) => raw(`a${i + 7}`, 'a')));
    expect(await redis.exists(keys.fair('q').jobs, keys.fair('q').ring)).to.equal(0);
  });

  it("takes the group's turn the usual way, touching nothing else, when the sorted set holds a job its counts do not know", async () => {
    await enqueue(Array.from({ length: 20 }, (_, i) => raw(`a${i}`, 'a')));
    queue.count = 2;
    await fetchJobs(redis, keys, 'n1', [queue]);
    // A member of the default group (it sorts first) written behind the counts' back.
    const f = keys.fair('q');
    const stray = `\0${'0'.repeat(15)}\0${raw('stray')}`;
    await redis.zadd(f.jobs, 0, stray);
    const got = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(got.jobs[0]).to.deep.equal([raw('a2', 'a'), raw('a3', 'a')]);
    expect(await redis.zscore(f.jobs, stray)).to.equal('0');
    expect(await redis.zcard(f.jobs)).to.equal(17);
    expect(await redis.hget(f.groups, 'a')).to.equal('16');
  });
});
