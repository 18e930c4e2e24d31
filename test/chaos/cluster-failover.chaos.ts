// Chaos: two nodes on a Redis Cluster in the per-queue key layout (an untagged namespace: each
// queue in a slot of its own, the queues spread over the 3 masters) work through 10,000 jobs of 6
// queues while the master of q1 is killed with -9 and its replica takes over; the killed server
// then comes back as the new master's replica. With `waitReplicas: 1` every job whose enqueue was
// confirmed runs, and the nodes and the producer carry on against the new master by themselves.
// Prints lost / duplicates for the closing notes.
import { expect } from 'chai';
import { Keys } from '../../src/redis/keys';
import { captureLogs } from '../support/capture-logs';
import { everyConfirmedJobRan } from './confirmed-runs';
import { sleep, useNodes, waitFor } from '../support/node';
import { clusterPerTest } from '../support/redis-cluster';
import { expectApartWorking, kill9, NodeProcess, startApartNode } from './cluster';

const JOBS = 10_000;
const AFTER_FAILOVER = 300;
const CHUNK = 500;
const CONCURRENCY = 5;
const QUEUES = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];

describe('chaos: Redis Cluster failover', function () {
  const t = useNodes(); // the fixtures record into the shared single Redis, which does not fail over
  let apart: NodeProcess | undefined;
  // Registered before the cluster's hooks, so the node apart goes before its cluster does.
  afterEach(async function () {
    this.timeout(60_000);
    if (apart) await kill9(apart);
    apart = undefined;
  });
  const cluster = clusterPerTest();

  it('kill -9 of the master of a queue mid-run: no confirmed job lost, the nodes resume by themselves', async () => {
    const setup = cluster();
    const namespace = t.ns;
    const keys = new Keys(namespace, 'per-queue');
    const redis = setup.redisOption({ waitReplicas: 1 });
    const done = t.out('done');
    const logs = captureLogs();
    const node = () =>
      t.start({
        redis,
        namespace,
        logger: logs.logger,
        queues: QUEUES.map((name) => ({ name, concurrency: CONCURRENCY })),
        heartbeatInterval: 1,
      });
    const nodes = [await node(), await node()];
    const producer = await t.start({ redis, namespace, logger: logs.logger, mode: 'enqueuer' });
    apart = await startApartNode({ redis, namespace });

    const confirmed = new Set<string>();
    const confirmedAfterFailover = new Set<string>();
    let failedOver = false as boolean; // set while the producer runs
    let refusedJobs = 0;
    const producing = (async () => {
      // JOBS in all, in chunks, and some after the failover whatever the pace: they prove the resumption.
      for (let i = 0; confirmed.size < JOBS || confirmedAfterFailover.size < AFTER_FAILOVER; i++) {
        const size = confirmed.size < JOBS ? CHUNK : 50;
        const chunk = Array.from({ length: size }, (_, k) => ({
          queue: QUEUES[(i + k) % QUEUES.length],
          class: 'Tally',
          args: [t.url, done],
        }));
        try {
          for (const jid of await producer.enqueueAll(chunk)) {
            confirmed.add(jid);
            if (failedOver) confirmedAfterFailover.add(jid);
          }
        } catch {
          refusedJobs += size; // unconfirmed: each may or may not exist; enqueue again (at least once)
          await sleep(100);
        }
        await sleep(10);
      }
    })();

    // Mid-run: jobs running, a fifth enqueued, the producer still at it.
    await waitFor(
      async () => confirmed.size >= JOBS / 5 && (await t.redis.llen(done)) >= JOBS / 20,
      60_000,
      'a fifth of the jobs enqueued and some run',
    );
    const spread = await Promise.all(QUEUES.map((q) => setup.masterOf(keys.queue(q))));
    expect(new Set(spread).size, 'masters holding the six queues').to.be.at.least(2);
    const victim = await setup.masterOf(keys.queue('q1'));
    const onVictim = QUEUES.filter((_, i) => spread[i] === victim);
    const started = Date.now();
    const { promoted } = await setup.killMaster(victim);
    failedOver = true;
    const failoverMs = Date.now() - started;
    const ranAtFailover = await t.redis.llen(done);
    // Until the killed server is back as the new master's replica, no write can be confirmed.
    await setup.rejoin(victim);
    await producing;

    const { duplicates } = await everyConfirmedJobRan(t.redis, done, confirmed, 120_000, async (missing) => {
      const places = await Promise.all(
        missing.map(
          async (jid) =>
            `${jid}: ${JSON.stringify(
              await producer.show(jid).then(
                (s) => s && { state: s.state, queue: s.queue, node: s.node },
                (e: unknown) => (e as Error).message,
              ),
            )}`,
        ),
      );
      return `(${places.join('; ')})`;
    });
    console.log(
      `      cluster failover (kill -9) ${victim} (queues ${onVictim.join(',')}; masters ${spread.join(',')}) -> ${promoted} in ${failoverMs} ms: ` +
        `confirmed=${confirmed.size} (after failover ${confirmedAfterFailover.size}) ` +
        `ran-before=${ranAtFailover} lost=0 duplicates=${duplicates} refused-jobs=${refusedJobs}`,
    );
    expect(await setup.masterOf(keys.queue('q1'))).to.equal(promoted);
    expect(nodes.every((n) => n.node.ctx.keys.perQueue)).to.equal(true);
    expect(
      nodes.every((n) => n.node.running) && producer.node.running,
      'both nodes and the producer still running',
    ).to.equal(true);
    // A duplicate is a job in flight at the failover run again, or one of a refused chunk that had landed.
    expect(duplicates).to.be.at.most(nodes.length * QUEUES.length * CONCURRENCY + refusedJobs);
    if (process.env.NEXQ_TEST_LOGS) console.log(logs.text());
    expect(logs.text()).to.include('redis cluster via 127.0.0.1:');
    // Chunks refused as unconfirmed may have landed too: they run as well, leaving the queues empty.
    const queued = async () =>
      (await Promise.all(QUEUES.map((q) => producer.node.ctx.redis.llen(keys.queue(q))))).reduce((a, b) => a + b, 0);
    await waitFor(async () => (await queued()) === 0, 60_000, 'the queues on the new master to empty');
    const ranApart = t.out('apart');
    await expectApartWorking(
      apart,
      (queue) => producer.enqueue(queue, 'Tally', [t.url, ranApart]),
      async () => (await t.redis.llen(ranApart)) === 1,
    );
  });
});
