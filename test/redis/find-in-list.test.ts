// Finding a job by jid in one list (a queue or a backup list) reads a bounded stretch per script
// call: in a queue of a million jobs one call would hold Redis for a second, with every node's
// fetches and beats waiting behind it.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { defineScripts, runScript } from '../../src/redis/scripts';
import { findInList } from '../../src/redis/move-scripts';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

describe('find-in-list: a job by jid in a long list', () => {
  let redis: Redis;
  let list: string;
  const jid = (i: number) => `jid-${i}`;

  beforeEach(async () => {
    redis = defineScripts(new Redis(sharedRedis().url));
    list = new Keys(freshNamespace()).queue('long');
    // 25,000 jobs pushed oldest first, as producers push: jid-0 at the right end, next to run.
    await redis.eval(
      `for i = 0, tonumber(ARGV[1]) - 1 do
         redis.call('LPUSH', KEYS[1], cjson.encode({ jid = 'jid-' .. i, class = 'X', args = { i }, queue = 'long' }))
       end`,
      1,
      list,
      25_000,
    );
  });
  afterEach(() => redis.quit());

  it('finds a job at either end and in the middle, across several calls, and says null for a jid it lacks', async () => {
    for (const i of [24_999, 12_345, 0]) {
      const found = await findInList(redis, list, jid(i));
      expect(JSON.parse(found!).jid).to.equal(jid(i));
    }
    expect(await findInList(redis, list, 'jid-missing')).to.equal(null);
  });

  it('reads at most the stretch it is given per call, and says where the next call starts', async () => {
    // jid-0 is the last element: a call reading 1,000 from the left stops short of it.
    expect(await runScript(redis, 'find-in-list', [list], [jid(0), '0', '1000'])).to.equal(1000);
    expect(await runScript(redis, 'find-in-list', [list], [jid(0), '24000', '1000'])).to.be.a('string');
    expect(await runScript(redis, 'find-in-list', [list], ['jid-missing', '24000', '1000'])).to.equal(null);
  });
});
