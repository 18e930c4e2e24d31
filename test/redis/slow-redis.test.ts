// A slow Redis (issue 24): a node whose connection goes through a delaying proxy keeps running
// jobs, none twice, none lost, and no command timeout turns into a failure or a retry. Each run
// of a Tally job pushes its jid to a list on the test's Redis directly (not through the proxy),
// so every run and every duplicate is counted. Throughput is printed, never asserted.
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { captureLogs } from '../support/capture-logs';
import { DelayProxy } from '../support/delay-proxy';
import { sharedRedis } from '../support/global-hooks';
import { useNodes, waitFor } from '../support/node';

const JOBS = 1000;
const CONCURRENCY = 20;
// The node's own defaults: the stalls below are longer than both polls.
const POLLS = { pollTimeout: 100, schedulerPollTimeout: 1000 };

describe('a slow Redis', function () {
  this.timeout(60_000);
  const t = useNodes();
  let proxy: DelayProxy | undefined;

  afterEach(async () => {
    await proxy?.stop();
    proxy = undefined;
  });

  const done = () => t.out('done');

  async function enqueue(count: number, sleepMs = 0): Promise<Set<string>> {
    const producer = await t.start({ mode: 'enqueuer' });
    const args = [t.url, done(), sleepMs];
    const jobs = Array.from({ length: count }, () => ({ queue: 'default', class: 'Tally', args }));
    const jids = new Set(await producer.enqueueAll(jobs));
    await t.stop(producer);
    return jids;
  }

  async function runs(): Promise<{ total: number; unique: Set<string> }> {
    const all = await t.redis.lrange(done(), 0, -1);
    return { total: all.length, unique: new Set(all) };
  }

  /** Starts a node on `url` with a log every warning reaches; resolves with jobs/s once all ran. */
  async function drain(url: string, jids: Set<string>, during?: (node: Nexq) => Promise<void>) {
    const logs = captureLogs();
    logs.logger.level = 'warn';
    const started = Date.now();
    const node = await t.start({
      ...POLLS,
      redis: url,
      logger: logs.logger,
      queues: [{ name: 'default', concurrency: CONCURRENCY }],
    });
    const side = during?.(node);
    await waitFor(async () => (await runs()).unique.size === jids.size, 45_000, `all ${jids.size} jobs to run`);
    const seconds = (Date.now() - started) / 1000;
    await side;
    return { node, logs: logs.text(), jobsPerSecond: Math.round(jids.size / seconds) };
  }

  /**
   * The warnings logged, but the start's one line about jobs under another namespace: other tests'
   * namespaces on this shared Redis hold jobs no node serves.
   */
  function ownWarnings(logs: string): string {
    return logs
      .split('\n')
      .filter((line) => line !== '' && !line.includes('jobs wait under another namespace'))
      .join('\n');
  }

  /** Nothing ran twice, nothing failed, nothing is left anywhere but in `done`. */
  async function expectEachRanOnce(jids: Set<string>, logs: string): Promise<void> {
    const { total, unique } = await runs();
    expect(
      [...jids].filter((jid) => !unique.has(jid)),
      'lost',
    ).to.deep.equal([]);
    expect(total - unique.size, 'duplicate runs').to.equal(0);
    expect(await t.redis.get(t.keys.stat('failed')), 'failures').to.equal(null);
    expect(await t.redis.zcard(t.keys.retry('default')), 'retry set').to.equal(0);
    expect(await t.redis.zcard(t.keys.dead('default')), 'dead set').to.equal(0);
    expect(ownWarnings(logs), 'warnings and errors logged').to.equal('');
  }

  it('20 ms each way: runs every job once, no timeout becomes a retry; prints jobs/s with and without', async () => {
    const direct = await drain(t.url, await enqueue(JOBS));
    await t.stop(direct.node);
    await t.redis.del(done());

    proxy = await DelayProxy.start(sharedRedis().port, 20);
    const jids = await enqueue(JOBS);
    const slow = await drain(proxy.url, jids);
    await expectEachRanOnce(jids, slow.logs);
    console.log(
      `      c${CONCURRENCY}, ${JOBS} no-op jobs: direct ${direct.jobsPerSecond} jobs/s, 20 ms each way ` +
        `${slow.jobsPerSecond} jobs/s (${(direct.jobsPerSecond / slow.jobsPerSecond).toFixed(1)}× slower), ` +
        `${proxy.connections} connection(s) opened`,
    );
    // No connection was given up on and opened again.
    expect(proxy.connections).to.be.below(CONCURRENCY);
  });

  it('stalls of 2 s (longer than a poll, shorter than the command timeout): nothing lost, nothing twice', async () => {
    proxy = await DelayProxy.start(sharedRedis().port, 1);
    // Jobs of 50 ms: at c20 the run lasts several stalls.
    const jids = await enqueue(JOBS, 50);
    let stalls = 0;
    const stallWhileRunning = async () => {
      // Stall as soon as jobs run, then every 2.5 s while some are left: mid-fetch, mid-ack, mid-beat.
      await waitFor(async () => (await t.redis.llen(done())) > 0, 20_000, 'the first job to run');
      while ((await runs()).unique.size < jids.size) {
        proxy!.stall(2000);
        stalls++;
        await new Promise((r) => setTimeout(r, 2500));
      }
    };
    const slow = await drain(proxy.url, jids, stallWhileRunning);
    // Let the last acks land (they may wait out a stall), then check nothing is left in backup.
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(slow.node.node.ctx.config.nodeId, 'default'))) === 0,
      10_000,
      'the backup list to empty',
    );
    await expectEachRanOnce(jids, slow.logs);
    console.log(
      `      ${stalls} stalls of 2 s over ${JOBS} jobs of 50 ms at c${CONCURRENCY}: ${slow.jobsPerSecond} jobs/s, ` +
        `${proxy.connections} connection(s) opened`,
    );
    expect(stalls).to.be.at.least(2);
    // No connection was given up on and opened again.
    expect(proxy.connections).to.be.below(CONCURRENCY);
  });

  it('an idle node stalled for 6 s: no connection is given up, the job pushed meanwhile runs once', async () => {
    proxy = await DelayProxy.start(sharedRedis().port, 1);
    const logs = captureLogs();
    logs.logger.level = 'warn';
    await t.start({ ...POLLS, redis: proxy.url, logger: logs.logger });
    // The node is idle: its wake subscriber listens, and its waiting fetch waits (it serves one queue).
    await waitFor(
      async () => {
        const clients = String(await t.redis.client('LIST'));
        return clients.includes('cmd=subscribe') && clients.includes('cmd=blmove');
      },
      5000,
      'the wake subscriber and the waiting fetch',
    );
    const connections = proxy.connections;
    proxy.stall(6000);
    await new Promise((r) => setTimeout(r, 500));
    const producer = await t.start({ mode: 'enqueuer' });
    const jid = await producer.enqueue('default', 'Tally', [t.url, done()]);
    await waitFor(async () => (await t.redis.llen(done())) > 0, 15_000, 'the job to run');
    await new Promise((r) => setTimeout(r, 500));
    expect(await t.redis.lrange(done(), 0, -1)).to.deep.equal([jid]);
    expect(ownWarnings(logs.text()), 'warnings logged').to.equal('');
    expect(proxy.connections, 'connections opened again').to.equal(connections);
  });
});
