// A full Redis (issue #24): at maxmemory under noeviction an enqueue is refused as out of memory,
// running jobs still settle, nothing in Redis is lost and the node carries on once memory frees;
// under a policy that evicts, the node warns at start. On a redis-server of the test's own, whose
// maxmemory and maxmemory-policy it sets at run time.
import { expect } from 'chai';
import { RedisOutOfMemoryError } from '../../src/errors';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor, sleep } from '../support/node';
import { askRedis, RedisServer } from '../support/redis-server';

/** Bytes Redis says it uses now. */
async function usedMemory(t: { redis: { info(section: string): Promise<string> } }): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await t.redis.info('memory'))![1]);
}

describe('a full Redis', function () {
  this.timeout(60_000);
  let server: RedisServer;
  before(async () => void (server = await RedisServer.start()));
  after(async () => server.stop());
  const t = useNodes({ url: () => server.url, flushFirst: true });
  // Whatever a test left, the next one starts with room and without eviction.
  afterEach(() => askRedis(server.port, (c) => c.config('SET', 'maxmemory', '0', 'maxmemory-policy', 'noeviction')));
  async function config(...args: string[]): Promise<void> {
    await t.redis.call('CONFIG', 'SET', ...args);
  }

  /** Fills Redis: 4 MB of other values, then maxmemory 1 MB below what it uses. Returns the values' keys. */
  async function fillUp(): Promise<{ filler: string[]; limit: number }> {
    const filler = Array.from({ length: 16 }, (_, i) => `filler:${i}`);
    for (const key of filler) await t.redis.set(key, 'x'.repeat(256 * 1024));
    const limit = (await usedMemory(t)) - 1024 * 1024;
    await config('maxmemory', String(limit), 'maxmemory-policy', 'noeviction');
    return { filler, limit };
  }

  it('refuses enqueues as out of memory, settles running jobs, loses nothing, and resumes when memory frees', async () => {
    const logs = captureLogs();
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 4 }],
      heartbeatInterval: 1,
      logger: logs.logger,
    });
    const succeeded: string[] = [];
    const started: string[] = [];
    node.events.on('job:start', ({ jid }) => void started.push(jid));
    node.events.on('job:success', ({ jid }) => void succeeded.push(jid));
    // Four jobs running and four waiting behind them when Redis fills up.
    const before: string[] = [];
    for (let i = 0; i < 8; i++) before.push(await node.enqueue('default', 'Sleep', [1000]));
    await waitFor(() => started.length === 4, 10_000, 'four jobs running');

    // Redis fills up.
    const { filler, limit } = await fillUp();

    const refused = await node.enqueue('default', 'Sleep', [10]).then(
      () => expect.fail('the enqueue should be refused'),
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(RedisOutOfMemoryError);
    expect(refused).to.have.property('code', 'REDIS_OOM');
    expect((refused as Error).message).to.match(/^Redis is out of memory: .*maxmemory/);
    const bulk = await node
      .enqueueAll([
        { queue: 'default', class: 'Sleep', args: [10] },
        { queue: 'other', class: 'Sleep', args: [10] },
      ])
      .catch((err: unknown) => err);
    expect(bulk).to.have.property('code', 'REDIS_OOM');

    // The running jobs settle (an ack frees memory), and so do the waiting ones the node takes next.
    await waitFor(() => succeeded.length === 8, 20_000, 'the eight jobs to settle while Redis is full');
    expect(succeeded.slice().sort()).to.deep.equal(before.slice().sort());
    expect(await usedMemory(t), 'still above maxmemory').to.be.greaterThan(limit);
    // A while full: the stats flush is refused meanwhile; the node stays up, and its beat (a script
    // whose first write removes) goes on, so no other node takes it for dead.
    const nodeId = node.node.ctx.config.nodeId;
    const beatBefore = Number(await t.redis.zscore(t.keys.nodes, nodeId));
    await sleep(2500);
    expect(node.node.running, 'the node is still running').to.equal(true);
    expect(Number(await t.redis.zscore(t.keys.nodes, nodeId)), 'the beat moved on').to.be.greaterThan(beatBefore);

    // Memory frees: the node carries on by itself.
    await t.redis.del(...filler);
    const after = await waitFor(
      () => node.enqueue('default', 'Sleep', [10]).catch(() => undefined),
      10_000,
      'an enqueue accepted again',
    );
    await waitFor(() => succeeded.includes(after), 10_000, 'the new job to run');
    // Nothing lost, nothing ran twice, nothing failed.
    expect(new Set(succeeded).size).to.equal(succeeded.length);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
    // The counts kept in memory while the flush was refused reach Redis.
    await waitFor(async () => Number(await t.redis.get(t.keys.stat('processed'))) === 9, 10_000, 'the stats flushed');
    expect(logs.text()).not.to.contain('supervision tree gave up');
  });

  it('retries a settle step Redis refuses as out of memory until memory frees, and files the job once', async () => {
    const logs = captureLogs();
    const node = await t.start({ logger: logs.logger });
    const dead: string[] = [];
    node.events.on('job:dead', ({ jid }) => void dead.push(jid));
    // At most once, the job is off its backup list when it fails: filing it in dead is a script
    // whose first write adds (ZADD), which a full Redis refuses.
    let started = false;
    node.events.on('job:start', () => void (started = true));
    const jid = await node.enqueue('default', 'SleepThenFail', [500], { atMostOnce: true });
    await waitFor(() => started, 10_000, 'the job running');
    const { filler } = await fillUp();
    await waitFor(
      () => /settling the job failed, retrying: Redis is out of memory/.test(logs.text()),
      10_000,
      'a retry',
    );
    await sleep(1000);
    expect(dead, 'not filed while Redis is full').to.deep.equal([]);
    // Backoff, not a spin: a few tries a second at most.
    expect(logs.text().match(/settling the job failed/g)!.length).to.be.lessThan(10);
    await t.redis.del(...filler);
    await waitFor(() => dead.length === 1, 10_000, 'the job filed in dead');
    const entries = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    expect(entries.map((e) => JSON.parse(e).jid)).to.deep.equal([jid]);
    expect(await node.show(jid)).to.include({ state: 'dead' });
  });

  it('warns at start, naming maxmemory-policy, when Redis may evict jobs, and not under noeviction', async () => {
    await config('maxmemory-policy', 'allkeys-lru', 'maxmemory', String(512 * 1024 * 1024));
    try {
      const evicting = captureLogs();
      await t.stop(await t.start({ logger: evicting.logger }));
      const warning = evicting
        .text()
        .split('\n')
        .find((line) => line.includes('maxmemory-policy'));
      expect(warning, 'a warning naming maxmemory-policy').to.be.a('string');
      expect(JSON.parse(warning!)).to.include({ level: 'warn' });
      expect(warning).to.contain('maxmemory-policy allkeys-lru').and.contain('noeviction');
    } finally {
      await config('maxmemory-policy', 'noeviction', 'maxmemory', '0');
    }
    const safe = captureLogs();
    await t.stop(await t.start({ logger: safe.logger }));
    expect(safe.text()).not.to.contain('maxmemory-policy');
  });
});
