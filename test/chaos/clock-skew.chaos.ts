// Chaos: one node's wall clock 45 s off (libfaketime, FAKETIME_DONT_FAKE_MONOTONIC=1 so only the
// wall clock moves), ahead and behind. Liveness comes from Redis' clock and due times from one
// clock (docs/time.md), so with three nodes every job runs once and no healthy node is reaped; and
// alone, the skewed node runs scheduled jobs, retries, ttl'd jobs and periodic ticks on Redis' time.
// Prints duplicates / lost / how long a scheduled job took, for the closing notes.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { Nexq, NexqStartOptions } from '../../src/nexq';
import { freshNamespace, sharedRedis } from '../support/global-hooks';
import { sleep, TEST_KEY_LAYOUT, waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { requireTool } from '../support/required-tool';
import { expectAlive, NodeProcess, startNodeProcess, stopGracefully } from './cluster';

const FAKETIME_LIBS = ['x86_64-linux-gnu', 'aarch64-linux-gnu'].map((a) => `/usr/lib/${a}/faketime/libfaketimeMT.so.1`);
const faketimeLib = () => FAKETIME_LIBS.find((file) => existsSync(file));
const JOBS = 400;
const JOB_MS = 150;
/** The skewed node's scheduler poll, and the slack a scheduled job is allowed past its due time. */
const POLL_MS = 250;

/** A port free now, for the skewed node's metrics. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The value of a metric without labels, from a node's /metrics. */
function scrape(port: number, name: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => {
          const line = body.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
          resolve(line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1)));
        });
      })
      .on('error', reject);
  });
}

async function redisSeconds(redis: Redis): Promise<number> {
  // Its replies are strings, whatever ioredis' types for time() say.
  const [s, us] = (await redis.call('TIME')) as [string, string];
  return Number(s) + Number(us) / 1e6;
}

for (const skew of ['+45s', '-45s']) {
  describe(`chaos: a node's wall clock ${skew} off Redis'`, function () {
    requireTool({
      name: 'libfaketime',
      missing: () => (faketimeLib() ? undefined : `none of ${FAKETIME_LIBS.join(', ')}`),
      install: 'apt-get install faketime',
    });
    let redis: Redis;
    let ns: string;
    let keys: Keys;
    let healthy: NodeProcess[] = [];
    let nodes: NodeProcess[] = [];
    const skewed = () => nodes[0];
    let metricsPort: number;
    const done = () => `${ns}:chaos:done`;
    const ticks = () => `${ns}:chaos:ticks`;

    const options = (): NexqStartOptions => ({
      redis: sharedRedis().url,
      namespace: ns,
      keyLayout: TEST_KEY_LAYOUT,
      queues: [{ name: 'default', concurrency: 5 }],
      jobsDir: fixturesJobs,
      logLevel: 'warn',
      pollTimeout: 20,
      threads: 1,
      // A skew of 45 s is well past the node timeout: before, every round reaped someone.
      heartbeatInterval: 1,
      nodeTimeout: 10,
      nodeCheckInterval: 1,
      schedulerPollTimeout: POLL_MS,
    });

    const startProducer = () =>
      Nexq.start({
        redis: sharedRedis().url,
        namespace: ns,
        keyLayout: TEST_KEY_LAYOUT,
        mode: 'enqueuer',
        logLevel: 'error',
      });

    before(async function () {
      if (!faketimeLib()) return;
      redis = new Redis(sharedRedis().url);
      ns = freshNamespace('skew');
      keys = new Keys(ns, TEST_KEY_LAYOUT);
      metricsPort = await freePort();
      const env = { LD_PRELOAD: faketimeLib(), FAKETIME: skew, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
      const skewedNode = await startNodeProcess(
        {
          ...options(),
          metrics: { port: metricsPort },
          queues: [
            { name: 'default', concurrency: 5 },
            { name: 'ticks', concurrency: 1 },
          ],
          periodic: [{ cron: '* * * * * *', queue: 'ticks', class: 'Tally', args: [sharedRedis().url, ticks()] }],
        },
        env,
      );
      nodes = [skewedNode];
      for (let i = 0; i < 2; i++) healthy.push(await startNodeProcess(options()));
    });

    after(async () => {
      expectAlive([...nodes, ...healthy]);
      for (const node of [...nodes, ...healthy]) await stopGracefully(node);
      nodes = [];
      healthy = [];
      // Unset when the suite was skipped (no libfaketime).
      (redis as Redis | undefined)?.disconnect();
    });

    it(`3 nodes, one ${skew}: ${JOBS} jobs of ${JOB_MS} ms run once each and no node leaves the process list`, async () => {
      await waitFor(async () => (await redis.scard(keys.processes)) === 3, 10_000, 'three processes');
      const producer = await startProducer();
      const jobs = Array.from({ length: JOBS }, () => ({
        queue: 'default',
        class: 'Tally',
        args: [sharedRedis().url, done(), JOB_MS],
      }));
      const jids = new Set(await producer.enqueueAll(jobs));
      await producer.stop();
      let fewestProcesses = 3;
      let fewestBeats = 3;
      await waitFor(
        async () => {
          const [processes, beats] = await Promise.all([redis.scard(keys.processes), redis.zcard(keys.nodes)]);
          fewestProcesses = Math.min(fewestProcesses, processes);
          fewestBeats = Math.min(fewestBeats, beats);
          return (await redis.llen(done())) >= JOBS;
        },
        60_000,
        'every job to run',
      );
      // A reaped node's jobs would run again a moment later: give them time to show.
      await sleep(2000);
      const runs = await redis.lrange(done(), 0, -1);
      const ran = new Set(runs);
      const lost = [...jids].filter((jid) => !ran.has(jid)).length;
      const duplicates = runs.length - ran.size;
      console.log(
        `      ${skew}: ${JOBS} jobs, ${duplicates} ran twice, ${lost} lost; fewest processes listed ${fewestProcesses}, node beats ${fewestBeats}`,
      );
      expect({ duplicates, lost, fewestProcesses, fewestBeats }).to.deep.equal({
        duplicates: 0,
        lost: 0,
        fewestProcesses: 3,
        fewestBeats: 3,
      });
      // It says so: a warn line at start, and the metric (Redis' clock minus its own).
      expect(skewed().output()).to.match(
        new RegExp(`clock is 4\\d\\.\\d+ s ${skew.startsWith('+') ? 'ahead of' : 'behind'} Redis`),
      );
      const offset = await scrape(metricsPort, 'nexq_clock_offset_seconds');
      expect(offset).to.be.within(skew.startsWith('+') ? -46 : 44, skew.startsWith('+') ? -44 : 46);
      expectAlive([...nodes, ...healthy]);
    });

    describe('the skewed node alone', () => {
      before(async () => {
        expectAlive(healthy);
        for (const node of healthy) await stopGracefully(node);
        healthy = [];
      });

      /** Enqueues a Tally job due in `seconds` (through the skewed node when `viaSkewed`); how long it took to run. */
      async function runDelay(seconds: number, viaSkewed: boolean): Promise<number> {
        const before = await redis.llen(done());
        const started = Date.now();
        const args = [sharedRedis().url, done()];
        if (viaSkewed) {
          skewed().child.stdin?.write(`${JSON.stringify({ queue: 'default', class: 'Tally', args, in: seconds })}\n`);
        } else {
          const producer = await startProducer();
          await producer.enqueueIn('default', seconds, 'Tally', args);
          await producer.stop();
        }
        await waitFor(async () => (await redis.llen(done())) > before, (seconds + 60) * 1000, 'the scheduled job');
        return (Date.now() - started) / 1000;
      }

      it('runs a job due in 3 s, enqueued by a node with a good clock, within its poll of 3 s', async () => {
        const took = await runDelay(3, false);
        console.log(`      ${skew}: a job due in 3 s ran after ${took.toFixed(2)} s`);
        expect(took).to.be.within(2.9, 3 + POLL_MS / 1000 + 1);
      });

      it('runs a job it enqueued itself with enqueueIn(3) within its poll of 3 s', async () => {
        const took = await runDelay(3, true);
        console.log(`      ${skew}: enqueueIn(3) on the skewed node ran after ${took.toFixed(2)} s`);
        expect(took).to.be.within(2.9, 3 + POLL_MS / 1000 + 1);
      });

      it("scores a retry by Redis' clock: the first backoff from now, failed_at now", async () => {
        const producer = await startProducer();
        await producer.enqueue('default', 'Fail', ['skewed'], { retry: 1 });
        await producer.stop();
        const retry = keys.retry('default');
        await waitFor(() => redis.zcard(retry), 10_000, 'the failed job in retry');
        const [raw, score] = await redis.zrange(retry, 0, 0, 'WITHSCORES');
        const job = JSON.parse(raw) as { retry_count: number; failed_at: number };
        const now = await redisSeconds(redis);
        // Written with the node's clock: Redis' time, not this machine's 45 s off.
        expect(job.failed_at - now).to.be.within(-3, 1);
        // The backoff of its count (Exq's dialect counts the first failure as 1): count^4 + 15 +
        // rand(30) * (count + 1) seconds after the failure.
        const count = job.retry_count;
        const least = count ** 4 + 15;
        expect(Number(score) - job.failed_at).to.be.within(least - 0.01, least + 29 * (count + 1) + 0.01);
      });

      it("does not expire a job whose ttl has not passed by Redis' clock", async () => {
        const before = await redis.llen(done());
        const producer = await startProducer();
        await producer.enqueue('default', 'Tally', [sharedRedis().url, done()], { ttl: 20 });
        await producer.stop();
        await waitFor(async () => (await redis.llen(done())) > before, 10_000, 'the ttl job to run');
        expect(await redis.zcard(keys.dead('default'))).to.equal(0);
      });

      it("enqueues each periodic tick at its time by Redis' clock", async () => {
        await waitFor(async () => (await redis.llen(ticks())) >= 2, 10_000, 'two periodic ticks');
        const jid = await redis.lindex(ticks(), -1);
        const tick = Number(/-(\d+)$/.exec(jid ?? '')?.[1]);
        expect(tick - (await redisSeconds(redis))).to.be.within(-3, 1);
      });
    });
  });
}
