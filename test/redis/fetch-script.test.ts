// fetch.lua's take of a queue's oldest jobs: one LMPOP on Redis >= 7.0, the read-push-trim of Redis
// 6.2 where LMPOP is missing (here: renamed away), and in both a broken backup key moves nothing.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { fetchJobs, FetchQueue } from '../../src/redis/fetch-script';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { fetchQueueOf } from '../support/fetch-queue';
import { RedisServer } from '../support/redis-server';

const job = (n: number) => JSON.stringify({ jid: `j${n}`, class: 'X', args: [n] });

/** Commands Redis ran by name since `since` (INFO commandstats, scripts' inner calls included). */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  return new Map([...info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

function describeTake(server: () => { url: string }, hasLmpop: boolean) {
  let redis: Redis;
  let keys: Keys;
  let queue: FetchQueue;

  beforeEach(async () => {
    redis = defineScripts(new Redis(server().url));
    keys = new Keys(freshNamespace());
    queue = fetchQueueOf(keys, { count: 3 });
    // Enqueued oldest first (LPUSH): j1 is the oldest, at the consumer (right) end.
    for (let n = 1; n <= 5; n++) await redis.lpush(queue.queueKey, job(n));
  });

  afterEach(() => redis.quit());

  it(`moves the oldest jobs, oldest first and deepest in the backup list, and indexes them${hasLmpop ? ' (one LMPOP)' : ' (no LMPOP: read, push, trim)'}`, async () => {
    const before = await commandCalls(redis);
    const fetched = await fetchJobs(redis, keys, 'n1', [queue]);
    const after = await commandCalls(redis);
    const ran = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(fetched.errors).to.deep.equal([]);
    expect(fetched.jobs).to.deep.equal([[job(1), job(2), job(3)]]);
    expect(await redis.lrange(queue.backupKey, 0, -1)).to.deep.equal([job(3), job(2), job(1)]);
    expect(await redis.lrange(queue.queueKey, 0, -1)).to.deep.equal([job(5), job(4)]);
    expect(await redis.hget(keys.jobIndex('q'), 'j1')).to.equal('1\trunning\tq\tn1');
    expect(ran('lmpop')).to.equal(hasLmpop ? 1 : 0);
    expect(ran('lrange') + ran('ltrim')).to.equal(hasLmpop ? 0 : 2);
  });

  it('takes jobs ahead only as many as leave a backlog of 100 behind them, and then says short', async () => {
    for (let n = 6; n <= 160; n++) await redis.lpush(queue.queueKey, job(n));
    // 160 wait: the 3 wanted, then 57 of the 64 asked ahead, so 100 stay.
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, ahead: 64 }]);
    expect(fetched.jobs[0]).to.have.length(60);
    expect(fetched.states).to.deep.equal(['short']);
    expect(await redis.llen(queue.queueKey)).to.equal(100);
    const again = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 0, ahead: 64 }]);
    expect(again.jobs).to.deep.equal([[]]);
    expect(await redis.llen(queue.queueKey)).to.equal(100);
  });

  it('takes what there is when the queue holds fewer jobs than wanted, and leaves no empty key', async () => {
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 10 }]);
    expect(fetched.jobs).to.deep.equal([[job(1), job(2), job(3), job(4), job(5)]]);
    expect(await redis.exists(queue.queueKey)).to.equal(0);
  });

  it('moves nothing and reports the queue when its backup key is broken: the queue keeps its jobs in order', async () => {
    await redis.set(queue.backupKey, 'not a list');
    const fetched = await fetchJobs(redis, keys, 'n1', [queue]);
    expect(fetched.jobs).to.deep.equal([[]]);
    expect(fetched.errors).to.have.length(1);
    expect(fetched.errors[0][1]).to.match(/WRONGTYPE/);
    expect(await redis.lrange(queue.queueKey, 0, -1)).to.deep.equal([job(5), job(4), job(3), job(2), job(1)]);
    expect(await redis.get(queue.backupKey)).to.equal('not a list');
    expect(await redis.hlen(keys.jobIndex('q'))).to.equal(0);
  });

  it('moves nothing when it would empty the queue and the backup key is broken', async () => {
    await redis.set(queue.backupKey, 'not a list');
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, count: 10 }]);
    expect(fetched.jobs).to.deep.equal([[]]);
    expect(await redis.lrange(queue.queueKey, 0, -1)).to.deep.equal([job(5), job(4), job(3), job(2), job(1)]);
  });

  it('reports a queue key that is not a list and serves the next queue', async () => {
    await redis.del(queue.queueKey);
    await redis.set(queue.queueKey, 'not a list');
    const other: FetchQueue = {
      ...queue,
      name: 'r',
      queueKey: keys.queue('r'),
      backupKey: keys.backup('n1', 'r'),
      runningKey: keys.running('r'),
      rateKey: keys.rate('r'),
    };
    await redis.lpush(other.queueKey, job(7));
    const fetched = await fetchJobs(redis, keys, 'n1', [queue, other]);
    expect(fetched.errors.map(([i, message]) => [i, /WRONGTYPE/.test(message)])).to.deep.equal([[0, true]]);
    expect(fetched.jobs).to.deep.equal([[], [job(7)]]);
  });

  it('reports a queue key that is not a list even when its limit across nodes is reached (nothing taken), and serves the next queue', async () => {
    await redis.del(queue.queueKey);
    await redis.set(queue.queueKey, 'not a list');
    await redis.hset(queue.runningKey, 'other-node', '1');
    const other: FetchQueue = {
      ...queue,
      name: 'r',
      queueKey: keys.queue('r'),
      backupKey: keys.backup('n1', 'r'),
      runningKey: keys.running('r'),
      rateKey: keys.rate('r'),
    };
    await redis.lpush(other.queueKey, job(7));
    const fetched = await fetchJobs(redis, keys, 'n1', [{ ...queue, globalLimit: 1 }, other]);
    expect(fetched.errors.map(([i, message]) => [i, /WRONGTYPE/.test(message)])).to.deep.equal([[0, true]]);
    expect(fetched.jobs).to.deep.equal([[], [job(7)]]);
    expect(fetched.states).to.deep.equal(['unknown', 'empty']);
  });
}

describe('fetch.lua taking the oldest jobs', () => {
  describe('on Redis >= 7.0', () => describeTake(sharedRedis, true));

  describe('where LMPOP is missing (as on Redis 6.2)', () => {
    let server: RedisServer;
    before(async () => {
      server = await RedisServer.start({ args: ['--rename-command', 'LMPOP', ''] });
    });
    after(() => server.stop());
    describeTake(() => server, false);
  });
});
