// fetch.lua's rate limits (GCRA, src/redis/lua/_prelude.lua) and throttle.lua's pause, on the script
// alone: what one call takes, what it says of the queue, and when it says the window opens.
import { expect } from 'chai';
import Redis from 'ioredis';
import { ServedQueues } from '../../src/fetch/served-queues';
import { Keys } from '../../src/redis/keys';
import { gcra } from '../../src/redis/limits';
import { defineScripts, fetchJobs, FetchQueue, throttle } from '../../src/redis/scripts';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { TEST_KEY_LAYOUT } from '../support/node';

const job = (n: number, cls = 'X') => JSON.stringify({ jid: `j${n}`, class: cls, args: [n] });

describe('the fetch script under rate limits', () => {
  let redis: Redis;
  let keys: Keys;
  let queue: FetchQueue;

  beforeEach(async () => {
    redis = defineScripts(new Redis(sharedRedis().url));
    keys = new Keys(freshNamespace(), TEST_KEY_LAYOUT);
    // As the manager builds it (without a rateLimit: each test adds its own).
    queue = new ServedQueues([{ name: 'q', concurrency: 100 }], keys, 'n1', () => 0).fetchQueue('q', 100);
    for (let n = 1; n <= 100; n++) await redis.lpush(queue.queueKey, job(n, n % 2 ? 'Odd' : 'Even'));
  });

  afterEach(() => redis.quit());

  it("takes a window's worth at once, then nothing until the window lets one more start, and says when", async () => {
    const limited = { ...queue, rate: gcra({ limit: 10, per: 60 }) };
    const first = await fetchJobs(redis, keys, 'n1', [limited]);
    expect(first.jobs[0].map((raw) => JSON.parse(raw).jid)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => `j${i + 1}`),
    );
    expect(first.states).to.deep.equal(['limited']);
    // One every 6 s after the burst: the next starts 6 s after the first ones did.
    expect(first.waits[0]).to.be.within(5000, 6000);
    const second = await fetchJobs(redis, keys, 'n1', [limited]);
    expect(second.jobs).to.deep.equal([[]]);
    expect(second.states).to.deep.equal(['limited']);
    expect(await redis.llen(queue.queueKey)).to.equal(90);
    // Another node's fetch counts against the same window.
    const other = await fetchJobs(redis, keys, 'n2', [{ ...limited, backupKey: keys.backup('n2', 'q') }]);
    expect(other.jobs).to.deep.equal([[]]);
  });

  it("holds back a class over its rate in place and takes the others' jobs behind it", async () => {
    const classes = [{ name: 'Odd', rate: gcra({ limit: 2, per: 60 }) }];
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 6 }], classes);
    expect(fetched.jobs[0].map((raw) => JSON.parse(raw).jid)).to.deep.equal(['j1', 'j2', 'j3', 'j4', 'j6', 'j8']);
    // A class's rate holds back its own jobs only: the queue is polled as usual, not at its window.
    expect(fetched.waits).to.deep.equal([0]);
    const left = (await redis.lrange(queue.queueKey, -3, -1)).map((raw) => JSON.parse(raw).jid);
    expect(left).to.deep.equal(['j9', 'j7', 'j5']);
    // Counted in the class's key; the queue, without a limit of its own, keeps no state.
    expect(await redis.exists(keys.classRate('Odd', 'q'))).to.equal(1);
    expect(await redis.exists(queue.rateKey)).to.equal(0);
  });

  it('takes jobs ahead, counted, while the window has room for twice as many; none near its end', async () => {
    for (let n = 101; n <= 300; n++) await redis.lpush(queue.queueKey, job(n));
    const generous = await fetchJobs(redis, keys, 'n1', [
      { ...queue, count: 5, ahead: 5, rate: gcra({ limit: 1000, per: 1 }) },
    ]);
    expect(generous.jobs[0]).to.have.length(10);
    await redis.del(queue.rateKey);
    // 12 a minute: 5 taken leave room for 7, less than twice the 5 ahead.
    const tight = await fetchJobs(redis, keys, 'n1', [
      { ...queue, count: 5, ahead: 5, rate: gcra({ limit: 12, per: 60 }) },
    ]);
    expect(tight.jobs[0]).to.have.length(5);
    // Paused, a queue without a limit takes none ahead either, even with no free slot asked for.
    await throttle(redis, queue.rateKey, 10_000, 0);
    const paused = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 0, ahead: 5 }]);
    expect(paused.jobs).to.deep.equal([[]]);
  });

  it('takes nothing from a paused queue, with or without a limit, and says when the pause ends', async () => {
    expect(await throttle(redis, queue.rateKey, 30_000, 0)).to.be.within(29_000, 30_000);
    const paused = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(paused.jobs).to.deep.equal([[]]);
    expect(paused.states).to.deep.equal(['limited']);
    expect(paused.waits[0]).to.be.within(29_000, 30_000);
    // A shorter pause keeps the longer one; a limited queue's pause counts its tolerance.
    expect(await throttle(redis, queue.rateKey, 1000, 0)).to.be.within(29_000, 30_000);
    const rate = gcra({ limit: 10, per: 1 });
    await redis.del(queue.rateKey);
    await throttle(redis, queue.rateKey, 5000, rate.toleranceMs);
    const limited = await fetchJobs(redis, keys, 'n1', [{ ...queue, rate }]);
    expect(limited.jobs).to.deep.equal([[]]);
    expect(limited.waits[0]).to.be.within(4000, 5000);
  });
});
