// Chaos: two nodes work through jobs a producer enqueues during the run while Sentinel fails the
// master over to its replica — forced (SENTINEL FAILOVER), or because the master was killed with -9
// (it comes back and rejoins as a replica). With `waitReplicas: 1` every job whose enqueue was
// confirmed runs, and the nodes carry on against the new master by themselves. The servers and the
// sentinels require passwords, which never reach the nodes' logs.
import { expect } from 'chai';
import Redis from 'ioredis';
import { captureLogs } from '../support/capture-logs';
import { everyConfirmedJobRan } from './confirmed-runs';
import { sleep, useNodes, waitFor } from '../support/node';
import { SentinelSetup } from '../support/redis-sentinel';
import { expectApartWorking, kill9, NodeProcess, startApartNode } from './cluster';

const JOBS = 3000;
const AFTER_FAILOVER = 300;
const QUEUES = ['a', 'b', 'c'];
const PASSWORDS = { password: 'master-pw-7f3a', sentinelPassword: 'sentinel-pw-9c1e' };

describe('chaos: Sentinel failover', function () {
  const t = useNodes(); // the fixtures record into the shared Redis, which does not fail over
  let setup: SentinelSetup;
  let data: Redis | undefined;
  let apart: NodeProcess | undefined;

  beforeEach(async function () {
    this.timeout(60_000);
    setup = await SentinelSetup.start(PASSWORDS);
  });

  afterEach(async function () {
    this.timeout(60_000);
    if (apart) await kill9(apart);
    apart = undefined;
    data?.disconnect();
    await (setup as SentinelSetup | undefined)?.stop(); // unset when beforeEach failed
  });

  it('a forced failover mid-run loses no confirmed job, and the nodes resume by themselves', () =>
    runThrough('forced', () => setup.failover()));

  it('the master killed with -9 mid-run: no confirmed job lost, the nodes resume by themselves', () =>
    runThrough('kill -9', () => setup.killMaster()));

  async function runThrough(cause: string, failover: () => Promise<{ from: number; to: number }>): Promise<void> {
    const redis = setup.redisOption({ waitReplicas: 1 });
    const done = t.out('done');
    const logs = captureLogs();
    const node = () =>
      t.start({
        redis,
        logger: logs.logger,
        queues: QUEUES.map((name) => ({ name, concurrency: 10 })),
        heartbeatInterval: 1,
        // Longer than the test waits for a foreign push at the end: only key tracking, turned on
        // again against the new master, can start that job in time.
        idlePollInterval: 60_000,
      });
    const nodes = [await node(), await node()];
    const producer = await t.start({ redis, logger: logs.logger, mode: 'enqueuer' });
    apart = await startApartNode({ redis, namespace: t.ns });

    const confirmed = new Set<string>();
    const confirmedAfterFailover = new Set<string>();
    let failedOver = false as boolean; // set while the producer runs
    let refusedBatches = 0;
    const producing = (async () => {
      // At least JOBS in all, and some after the failover whatever the pace: they prove the resumption.
      for (let i = 0; confirmed.size < JOBS || confirmedAfterFailover.size < AFTER_FAILOVER; i++) {
        const batch = Array.from({ length: 10 }, (_, k) => ({
          queue: QUEUES[(i + k) % QUEUES.length],
          class: 'Tally',
          args: [t.url, done],
        }));
        try {
          for (const jid of await producer.enqueueAll(batch)) {
            confirmed.add(jid);
            if (failedOver) confirmedAfterFailover.add(jid);
          }
        } catch {
          refusedBatches++; // unconfirmed: it may or may not exist; enqueue again (at least once)
          await sleep(100);
        }
        await sleep(10);
      }
    })();

    // Mid-run: jobs running, a quarter enqueued, the producer still at it.
    await waitFor(
      async () => confirmed.size >= JOBS / 4 && (await t.redis.llen(done)) >= JOBS / 10,
      60_000,
      'a quarter of the jobs enqueued and some run',
    );
    const started = Date.now();
    const { from, to } = await failover();
    failedOver = true;
    const failoverMs = Date.now() - started;
    const ranAtFailover = await t.redis.llen(done);
    await producing;

    const { duplicates } = await everyConfirmedJobRan(t.redis, done, confirmed, 120_000);
    console.log(
      `      sentinel failover (${cause}) ${from} -> ${to} in ${failoverMs} ms: confirmed=${confirmed.size} (after failover ${confirmedAfterFailover.size}) ` +
        `ran-before=${ranAtFailover} lost=0 duplicates=${duplicates} refused-batches=${refusedBatches}`,
    );
    expect(to).to.not.equal(from);
    expect(
      nodes.every((n) => n.node.running) && producer.node.running,
      'both nodes and the producer still running',
    ).to.equal(true);
    if (process.env.NEXQ_TEST_LOGS) console.log(logs.text());
    expect(logs.text()).to.include(`redis sentinel master \\"${setup.name}\\" via 127.0.0.1:`); // JSON lines
    for (const secret of Object.values(PASSWORDS)) expect(logs.text()).to.not.include(secret);
    // Batches refused as unconfirmed may have landed too: they run as well, leaving the queues empty.
    data = setup.client();
    const queued = async () =>
      (await Promise.all(QUEUES.map((q) => data!.llen(t.keys.queue(q))))).reduce((a, b) => a + b, 0);
    await waitFor(async () => (await queued()) === 0, 30_000, 'the queues on the new master to empty');
    // A job a foreign producer (Sidekiq's client) pushes into an idle queue on the new master
    // starts without waiting for the idle poll: the nodes track its key there.
    const foreign = t.out('foreign');
    const job = { class: 'Tally', args: [t.url, foreign], jid: 'foreign-after-failover', queue: 'a', retry: true };
    await data.lpush(t.keys.queue('a'), JSON.stringify({ ...job, enqueued_at: Date.now() / 1000 }));
    await waitFor(async () => (await t.redis.llen(foreign)) === 1, 10_000, 'the foreign push to run');
    const ranApart = t.out('apart');
    await expectApartWorking(
      apart,
      (queue) => producer.enqueue(queue, 'Tally', [t.url, ranApart]),
      async () => (await t.redis.llen(ranApart)) === 1,
    );
  }
});
