// fetch.lua's rate limits (src/redis/lua/_prelude.lua: a sliding log of starts, GCRA under a burst)
// and throttle.lua's pause, on the script alone: what one call takes, what it says of the queue,
// when it says the window opens, and what the rate key keeps.
import { expect } from 'chai';
import Redis from 'ioredis';
import { ServedQueues } from '../../src/fetch/served-queues';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { throttle } from '../../src/redis/settle-scripts';
import { fetchJobs, FetchQueue, strictMarginMs } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { sleep, TEST_KEY_LAYOUT } from '../support/node';

/** A strict window of 60 s holds each start 60 s plus its margin (the spread of handlers' starts). */
const WINDOW_60 = 60_000 + strictMarginMs(60);

const job = (n: number, cls = 'X') => JSON.stringify({ jid: `j${n}`, class: cls, args: [n] });
const jids = (raws: string[]) => raws.map((raw) => JSON.parse(raw).jid);

/** Commands Redis ran by name (INFO commandstats, scripts' inner calls included). */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  return new Map([...info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

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

  it("takes a window's worth at once, then nothing until the first of them leaves the window, and says when", async () => {
    const limited = { ...queue, rate: { limit: 10, per: 60 } };
    const first = await fetchJobs(redis, keys, 'n1', [limited]);
    expect(jids(first.jobs[0])).to.deep.equal(Array.from({ length: 10 }, (_, i) => `j${i + 1}`));
    expect(first.states).to.deep.equal(['limited']);
    // Strict: the next may start once the first ones are a whole window (and its margin) old, not before.
    expect(first.waits[0]).to.be.within(WINDOW_60 - 1000, WINDOW_60);
    const second = await fetchJobs(redis, keys, 'n1', [limited]);
    expect(second.jobs).to.deep.equal([[]]);
    expect(second.states).to.deep.equal(['limited']);
    expect(second.waits[0]).to.be.within(WINDOW_60 - 1000, WINDOW_60);
    expect(await redis.llen(queue.queueKey)).to.equal(90);
    // Another node's fetch counts against the same window.
    const other = await fetchJobs(redis, keys, 'n2', [{ ...limited, backupKey: keys.backup('n2', 'q') }]);
    expect(other.jobs).to.deep.equal([[]]);
  });

  it('never lets a window hold more than the limit: each start frees its slot when it leaves, and the fetch says when', async () => {
    const limited = { ...queue, count: 3, rate: { limit: 5, per: 0.3 } };
    const seen = new Set<string>(); // the starts as the script recorded them: <start ms>:<n> members
    let waitedAndGot = 0;
    let waits = 0;
    while (seen.size < 40) {
      const fetched = await fetchJobs(redis, keys, 'n1', [limited]);
      const members = await redis.zrangebyscore(queue.rateKey, '0', '+inf');
      for (const member of members) seen.add(member);
      // Never more members than the limit: those out of the window are trimmed as jobs start.
      expect(members.length).to.be.at.most(5);
      if (waits > 0 && fetched.jobs[0].length > 0) waitedAndGot++;
      waits = fetched.waits[0];
      if (waits > 0) await sleep(waits);
    }
    const starts = [...seen].map((member) => Number(member.split(':')[0]));
    starts.sort((a, b) => a - b);
    for (let i = 0; i + 5 < starts.length; i++)
      expect(starts[i + 5] - starts[i], `starts ${starts.slice(i, i + 6).join(', ')}`).to.be.at.least(300);
    // Fetching when the fetch said a slot opens, a job is there to take (it said no earlier than that).
    expect(waitedAndGot).to.be.greaterThan(0);
  });

  it('keeps at most the limit of starts, and counts a thousand per call at no cost in the limit', async () => {
    for (let n = 101; n <= 3000; n++) await redis.lpush(queue.queueKey, job(n));
    const limited = { ...queue, count: 1000, rate: { limit: 2500, per: 60 } };
    const taken: number[] = [];
    for (let call = 0; call < 3; call++) taken.push((await fetchJobs(redis, keys, 'n1', [limited])).jobs[0].length);
    expect(taken).to.deep.equal([1000, 1000, 500]);
    expect(await redis.zcard(queue.rateKey)).to.equal(2500);
    // A full window: the next call reads two numbers of the key, never its members one by one.
    const before = await commandCalls(redis);
    const full = await fetchJobs(redis, keys, 'n1', [limited]);
    const after = await commandCalls(redis);
    const ran = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(full.jobs).to.deep.equal([[]]);
    expect(full.waits[0]).to.be.within(WINDOW_60 - 1000, WINDOW_60);
    expect([ran('zmscore'), ran('zcount'), ran('zrangebyscore'), ran('zrange'), ran('zadd')]).to.deep.equal([
      1, 1, 1, 0, 0,
    ]);
    expect(await redis.pttl(queue.rateKey)).to.be.within(WINDOW_60 - 1000, WINDOW_60 + 1);
  });

  it("holds back a class over its rate in place and takes the others' jobs behind it", async () => {
    const classes = [{ name: 'Odd', rate: { limit: 2, per: 60 } }];
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 6 }], classes);
    expect(jids(fetched.jobs[0])).to.deep.equal(['j1', 'j2', 'j3', 'j4', 'j6', 'j8']);
    // A class's rate holds back its own jobs only: the queue is polled as usual, not at its window.
    expect(fetched.waits).to.deep.equal([0]);
    const left = jids(await redis.lrange(queue.queueKey, -3, -1));
    expect(left).to.deep.equal(['j9', 'j7', 'j5']);
    // Counted in the class's key; the queue, without a limit of its own, keeps no state.
    expect(await redis.zcard(keys.classRate('Odd', 'q'))).to.equal(2);
    expect(await redis.exists(queue.rateKey)).to.equal(0);
  });

  it('takes jobs ahead, counted, while the window has room for twice as many; none near its end', async () => {
    for (let n = 101; n <= 300; n++) await redis.lpush(queue.queueKey, job(n));
    const generous = await fetchJobs(redis, keys, 'n1', [
      { ...queue, count: 5, ahead: 5, rate: { limit: 1000, per: 1 } },
    ]);
    expect(generous.jobs[0]).to.have.length(10);
    await redis.del(queue.rateKey);
    // 12 a minute: 5 taken leave room for 7, less than twice the 5 ahead.
    const tight = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 5, ahead: 5, rate: { limit: 12, per: 60 } }]);
    expect(tight.jobs[0]).to.have.length(5);
    // Paused, a queue without a limit takes none ahead either, even with no free slot asked for.
    await throttle(redis, queue.rateKey, 10_000);
    const paused = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 0, ahead: 5 }]);
    expect(paused.jobs).to.deep.equal([[]]);
  });

  it('takes nothing from a paused queue, with or without a limit, and says when the pause ends', async () => {
    expect(await throttle(redis, queue.rateKey, 30_000)).to.be.within(29_000, 30_000);
    const paused = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(paused.jobs).to.deep.equal([[]]);
    expect(paused.states).to.deep.equal(['limited']);
    expect(paused.waits[0]).to.be.within(29_000, 30_000);
    // A shorter pause keeps the longer one.
    expect(await throttle(redis, queue.rateKey, 1000)).to.be.within(29_000, 30_000);
    await redis.del(queue.rateKey);
    // Under a limit, the pause holds back its room too, and the starts it counted stay counted.
    const rate = { limit: 10, per: 60 };
    expect((await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 4, rate }])).jobs[0]).to.have.length(4);
    await throttle(redis, queue.rateKey, 5000);
    const limited = await fetchJobs(redis, keys, 'n1', [{ ...queue, rate }]);
    expect(limited.jobs).to.deep.equal([[]]);
    expect(limited.waits[0]).to.be.within(4000, 5000);
    expect(await redis.zcount(queue.rateKey, '0', '+inf')).to.equal(4);
    expect(await redis.pttl(queue.rateKey)).to.be.within(WINDOW_60 - 1000, WINDOW_60 + 1);
  });

  it('under a burst counts by GCRA: that many at once, then one every (per + margin)/limit', async () => {
    const bursty = { ...queue, rate: { limit: 10, per: 60, burst: 10 } };
    const first = await fetchJobs(redis, keys, 'n1', [bursty]);
    expect(first.jobs[0]).to.have.length(10);
    // One every 6.025 s after the burst (60 s and its 250 ms margin, over 10): the next starts then.
    expect(first.waits[0]).to.be.within(5000, 6025);
    await redis.del(queue.rateKey);
    const smooth = await fetchJobs(redis, keys, 'n1', [{ ...queue, rate: { limit: 10, per: 60, burst: 1 } }]);
    expect(smooth.jobs[0]).to.have.length(1);
    expect(smooth.waits[0]).to.be.within(5000, 6025);
  });

  it("spaces a burst's starts more than per/limit apart, so handlers a few ms late never come closer", async () => {
    // 5 a second: (1000 ms + its 50 ms margin) / 5 = 210 ms between starts, not 200.
    const evenly = { ...queue, rate: { limit: 5, per: 1, burst: 1 } };
    const first = await fetchJobs(redis, keys, 'n1', [evenly]);
    expect(first.jobs[0]).to.have.length(1);
    expect(first.waits[0]).to.be.above(200).and.at.most(210);
  });

  it("reports a rate key that is not a rate's and takes nothing from its queue, serving the others", async () => {
    const other = new ServedQueues([{ name: 'r', concurrency: 10 }], keys, 'n1', () => 0).fetchQueue('r', 10);
    await redis.lpush(other.queueKey, job(1000));
    await redis.set(queue.rateKey, 'not a rate');
    const queues = TEST_KEY_LAYOUT === 'shared' ? [queue, other] : [queue];
    const fetched = await fetchJobs(redis, keys, 'n1', queues);
    expect(fetched.jobs[0]).to.deep.equal([]);
    expect(fetched.errors.map(([i, message]) => [i, message.slice(0, 9)])).to.deep.equal([[0, 'WRONGTYPE']]);
    if (queues.length === 2) expect(jids(fetched.jobs[1])).to.deep.equal(['j1000']);
    expect(await redis.llen(queue.queueKey)).to.equal(100);
  });

  it('skips the queues of a call paused for output, whatever their place in it', async () => {
    if (TEST_KEY_LAYOUT !== 'shared') return; // one call per queue there
    const other = new ServedQueues([{ name: 'r', concurrency: 10 }], keys, 'n1', () => 0).fetchQueue('r', 10);
    await redis.lpush(other.queueKey, job(1000));
    await redis.hset(keys.paused('r'), 'r', 'out');
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 1 }, other]);
    expect(jids(fetched.jobs[0])).to.deep.equal(['j1']);
    expect(fetched.jobs[1]).to.deep.equal([]);
    expect(fetched.states).to.deep.equal(['more', 'paused']);
  });
});
