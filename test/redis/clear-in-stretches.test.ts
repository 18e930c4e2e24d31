// A clear (Sidekiq's Queue#clear) empties the queue in one step and forgets its jobs a stretch per
// call: forgetting a million jobs in one script held Redis for ~6 s, every node's fetches, acks and
// beats behind it (and answered BUSY to them past lua-time-limit).
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { keySlot } from '../../src/redis/client';
import { defineScripts, runScript } from '../../src/redis/scripts';
import { clearQueueList, clearSet } from '../../src/redis/move-scripts';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

for (const layout of ['shared', 'per-queue'] as const)
  describe(`clearing a long queue or set in stretches (${layout} key layout)`, () => {
    let redis: Redis;
    let keys: Keys;
    const queue = 'long';

    /** `n` jobs pushed as producers push them, each indexed as queued; every tenth holds a unique lock. */
    async function fill(n: number): Promise<void> {
      await redis.eval(
        `for i = 1, tonumber(ARGV[1]) do
         local job = { jid = 'jid-' .. i, class = 'X', args = { i }, queue = ARGV[2] }
         if i % 10 == 0 then
           job.unique_key = 'u-' .. i
           redis.call('SET', ARGV[3] .. 'u-' .. i, 'jid-' .. i)
         end
         redis.call('LPUSH', KEYS[1], cjson.encode(job))
         redis.call('HSET', KEYS[2], 'jid-' .. i, '0\tqueued\t' .. ARGV[2])
       end`,
        2,
        keys.queue(queue),
        keys.jobIndex(queue),
        n,
        queue,
        keys.uniqueLock('', queue),
      );
    }

    beforeEach(() => {
      redis = defineScripts(new Redis(sharedRedis().url));
      keys = new Keys(freshNamespace(), layout);
    });
    afterEach(() => redis.quit());

    it('empties the queue, forgets every job in the index and lets go of every unique lock', async () => {
      await fill(5_000);
      await redis.hset(keys.jobIndex(queue), 'elsewhere', '0\tschedule\t1');
      expect(await clearQueueList(redis, keys, queue)).to.equal(5_000);
      expect(await redis.exists(keys.queue(queue), keys.clearing(keys.queue(queue)))).to.equal(0);
      expect(await redis.hkeys(keys.jobIndex(queue))).to.deep.equal(['elsewhere']);
      expect(await redis.exists(keys.uniqueLock('u-10', queue), keys.uniqueLock('u-5000', queue))).to.equal(0);
    });

    it('takes the queue away in one call, and each later call forgets at most its stretch', async () => {
      await fill(3_000);
      const list = keys.queue(queue);
      const clearing = keys.clearing(list);
      const fair = keys.fair(queue);
      const detach = [list, clearing, fair.jobs, keys.clearing(fair.jobs), fair.groups, fair.ring, fair.parked];
      // Every key of a call in the queue's slot, in the per-queue layout (the one for Redis Cluster).
      if (layout === 'per-queue') expect(new Set(detach.map(keySlot)).size).to.equal(1);
      expect(await runScript(redis, 'clear-detach', detach, ['queued'])).to.equal(3_000);
      // Gone from the queue at once: no node fetches any of them now.
      expect(await redis.exists(list)).to.equal(0);
      const [taken, locks, left] = (await runScript(
        redis,
        'clear-stretch',
        [clearing, keys.jobIndex(queue)],
        ['queued', 1_000, ''],
      )) as [number, string[], number];
      expect([taken, locks.length / 2, left]).to.deep.equal([1_000, 100, 2_000]);
      expect(await redis.hlen(keys.jobIndex(queue))).to.equal(2_000);
    });

    it('finishes what a clear cut off half way left, before and with its own, and counts both', async () => {
      await fill(3_000);
      const list = keys.queue(queue);
      const fair = keys.fair(queue);
      const detach = [
        list,
        keys.clearing(list),
        fair.jobs,
        keys.clearing(fair.jobs),
        fair.groups,
        fair.ring,
        fair.parked,
      ];
      await runScript(redis, 'clear-detach', detach, ['queued']);
      // The process clearing stopped here; jobs came meanwhile, and a second clear must not lose track
      // of the first one's: it refuses to take the queue away while the clearing key holds jobs.
      await redis.lpush(list, JSON.stringify({ jid: 'late', class: 'X', args: [], queue }));
      await redis.hset(keys.jobIndex(queue), 'late', `0\tqueued\t${queue}`);
      expect(await runScript(redis, 'clear-detach', detach, ['queued'])).to.equal(-1);
      expect(await clearQueueList(redis, keys, queue)).to.equal(3_001);
      expect(await redis.exists(list, keys.clearing(list))).to.equal(0);
      expect(await redis.hlen(keys.jobIndex(queue))).to.equal(0);
    });

    it('empties a set the same way', async () => {
      const set = keys.jobSets('dead', [queue])[0].key;
      for (let i = 0; i < 2_500; i++) await redis.zadd(set, i, JSON.stringify({ jid: `d-${i}`, class: 'X', args: [] }));
      await redis.hset(keys.jobIndex(queue), 'd-7', '0\tdead\t7', 'q-1', `0\tqueued\t${queue}`);
      expect(await clearSet(redis, keys, 'dead', [queue])).to.equal(2_500);
      expect(await redis.exists(set, keys.clearing(set))).to.equal(0);
      expect(await redis.hkeys(keys.jobIndex(queue))).to.deep.equal(['q-1']);
    });
  });
