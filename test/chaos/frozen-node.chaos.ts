// Chaos: a node process is frozen with SIGSTOP, or cut off from Redis, for longer than
// nodeTimeout, so a survivor's reaper declares it dead and re-enqueues its backup list; then it
// resumes. The jobs it held fetched ahead (in its backup list, not started) are the others' now: it
// must not start them from memory, nor start any job once its claim may have lapsed. Only the jobs
// it really had running may run twice; it says it was declared dead, and goes on as a new member.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { Nexq } from '../../src/nexq';
import { freshNamespace } from '../support/global-hooks';
import { sleep, waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { DelayProxy } from '../support/delay-proxy';
import { RedisServer } from '../support/redis-server';
import { expectAlive, kill9, NodeProcess, startNodeProcess, stopGracefully } from './cluster';
import { everyConfirmedJobRan } from './confirmed-runs';

const NODE_TIMEOUT = 3;
/** How long a node's claim surely holds after its last acknowledged beat was sent (src/run/lease.ts). */
const LEASE_MS = 2000;

describe('chaos: a frozen node', function () {
  let server: RedisServer;
  let redis: Redis;
  let nodes: NodeProcess[] = [];
  let ns: string;
  let keys: Keys;
  let proxy: DelayProxy | undefined;

  beforeEach(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
    ns = freshNamespace('frozen');
    keys = new Keys(ns);
  });

  afterEach(async () => {
    for (const node of nodes) if (node.child.signalCode === null) node.child.kill('SIGCONT');
    await Promise.all(nodes.map((n) => kill9(n)));
    nodes = [];
    redis.disconnect();
    await proxy?.stop();
    proxy = undefined;
    await server.stop();
  });

  const starts = () => `${ns}:chaos:starts`;
  const done = () => `${ns}:chaos:done`;

  /** The starts of jobs by the process `pid`, oldest first ("<pid> <jid> <epoch ms>" entries). */
  async function startsOf(pid: number): Promise<Array<{ jid: string; at: number }>> {
    const all = await redis.lrange(starts(), 0, -1);
    return all
      .map((entry) => entry.split(' '))
      .filter(([by]) => by === String(pid))
      .map(([, jid, at]) => ({ jid, at: Number(at) }));
  }

  async function startsBy(pid: number): Promise<string[]> {
    return (await startsOf(pid)).map((s) => s.jid);
  }

  /** Enqueues `count` jobs of `jobMs` each, then starts a node per Redis address in `urls`. */
  async function run(count: number, jobMs: number, concurrency: number, urls: string[]): Promise<Set<string>> {
    const producer = await Nexq.start({ redis: server.url, namespace: ns, mode: 'enqueuer', logLevel: 'error' });
    const jobs = Array.from({ length: count }, () => ({
      queue: 'default',
      class: 'StartThenTally',
      args: [server.url, starts(), done(), jobMs],
    }));
    const jids = new Set(await producer.enqueueAll(jobs));
    await producer.stop();
    for (const url of urls)
      nodes.push(
        await startNodeProcess({
          redis: url,
          namespace: ns,
          queues: [{ name: 'default', concurrency }],
          prefetch: 1,
          jobsDir: fixturesJobs,
          logLevel: 'warn',
          pollTimeout: 20,
          threads: 1,
          heartbeatInterval: 1,
          nodeTimeout: NODE_TIMEOUT,
          nodeCheckInterval: 1,
        }),
      );
    return jids;
  }

  /** Waits until `victim` holds jobs fetched ahead beside the ones it runs. */
  async function untilHoldingAhead(victim: NodeProcess): Promise<void> {
    const pid = victim.child.pid as number;
    const heldAhead = async () => {
      const started = new Set(await startsBy(pid));
      return (await backupJids(victim)).filter((jid) => !started.has(jid));
    };
    await waitFor(async () => (await heldAhead()).length > 0, 30_000, 'the victim to hold jobs fetched ahead');
  }

  /** What a node that is back says, and that it still works. */
  async function expectCarriedOn(victim: NodeProcess, startedBefore: number): Promise<void> {
    expect(victim.output()).to.match(/was declared dead: no beat of it reached Redis for \d+\.\d s/);
    expect(victim.output().match(/was declared dead/g)).to.have.length(1);
    const pid = victim.child.pid as number;
    expect((await startsBy(pid)).length, 'jobs it started after it was back').to.be.greaterThan(startedBefore);
    expect(await redis.zscore(keys.nodes, victim.nodeId), 'back in the node list').not.to.equal(null);
    expectAlive(nodes);
    for (const node of nodes) expect(await stopGracefully(node), node.output()).to.equal(0);
  }

  /** The jids in the node's backup list: running there, or fetched ahead. */
  async function backupJids(node: NodeProcess): Promise<string[]> {
    const raws = await redis.lrange(keys.backup(node.nodeId, 'default'), 0, -1);
    return raws.map((raw) => (JSON.parse(raw) as { jid: string }).jid);
  }

  it('starts none of the jobs it held fetched ahead after it was declared dead, and carries on', async () => {
    const JOB_MS = 1000;
    const jids = await run(240, JOB_MS, 4, [server.url, server.url, server.url]);
    const victim = nodes[0];
    const pid = victim.child.pid as number;

    await untilHoldingAhead(victim);
    victim.child.kill('SIGSTOP');
    await sleep(300); // what it wrote before it stopped lands
    const startedAtFreeze = new Set(await startsBy(pid));
    const inBackup = await backupJids(victim);
    const running = inBackup.filter((jid) => startedAtFreeze.has(jid));
    const reserved = inBackup.filter((jid) => !startedAtFreeze.has(jid));
    expect(reserved, 'jobs held fetched ahead when frozen').not.to.be.empty;

    await waitFor(
      async () => (await redis.zscore(keys.nodes, victim.nodeId)) === null,
      (NODE_TIMEOUT + 10) * 1000,
      'a survivor to declare the frozen node dead',
    );
    await sleep(2000);
    expect(await redis.llen(keys.backup(victim.nodeId, 'default')), 'its backup list, re-enqueued').to.equal(0);
    victim.child.kill('SIGCONT');

    const { duplicates } = await everyConfirmedJobRan(redis, done(), jids, 90_000);
    await sleep(JOB_MS + 1000); // a job started twice late shows up in the list too
    const runs = await redis.lrange(done(), 0, -1);
    const allStarts = (await redis.lrange(starts(), 0, -1)).map((entry) => entry.split(' ')[1]);
    const startedTwice = reserved.filter((jid) => allStarts.filter((s) => s === jid).length > 1);
    console.log(
      `      SIGSTOP one of 3 nodes for >${NODE_TIMEOUT} s: jobs=${jids.size} running-on-frozen=${running.length} ` +
        `fetched-ahead=${reserved.length} duplicates=${runs.length - new Set(runs).size} (at every job done: ${duplicates})`,
    );
    expect(startedTwice, 'jobs it held fetched ahead, started twice').to.deep.equal([]);
    expect(runs.length - new Set(runs).size).to.be.at.most(running.length);
    await expectCarriedOn(victim, startedAtFreeze.size);
  });

  it('a node cut off from Redis starts no job once its claim may have lapsed, and carries on', async () => {
    // Jobs longer than the lease, so slots free while the node is cut off and its claim lapsed.
    const JOB_MS = 4000;
    const CUT_MS = (NODE_TIMEOUT + 4) * 1000;
    proxy = await DelayProxy.start(server.port);
    const jids = await run(200, JOB_MS, 8, [proxy.url, server.url]);
    const victim = nodes[0];
    const pid = victim.child.pid as number;
    await untilHoldingAhead(victim);
    const cutAt = Date.now();
    proxy.stall(CUT_MS); // every byte both ways held: the job handlers write to Redis directly
    await waitFor(
      async () => (await redis.zscore(keys.nodes, victim.nodeId)) === null,
      CUT_MS,
      'a survivor to declare the cut-off node dead',
    );
    await sleep(Math.max(0, cutAt + CUT_MS + 200 - Date.now()));
    const startedBeforeBack = (await startsOf(pid)).length;
    await everyConfirmedJobRan(redis, done(), jids, 90_000);
    await sleep(JOB_MS + 1000);
    // Its last beat was acknowledged before the cut: from LEASE_MS after the cut, until Redis
    // answered again, it may start nothing (100 ms for the two processes' timers).
    const lapsed = (await startsOf(pid)).filter(({ at }) => at > cutAt + LEASE_MS + 100 && at < cutAt + CUT_MS);
    const runs = await redis.lrange(done(), 0, -1);
    console.log(
      `      one of 2 nodes cut off for ${CUT_MS} ms: jobs=${jids.size} duplicates=${runs.length - new Set(runs).size} ` +
        `started while its claim had lapsed=${lapsed.length}`,
    );
    expect(lapsed, 'jobs it started while its claim had lapsed').to.deep.equal([]);
    await expectCarriedOn(victim, startedBeforeBack);
  });
});
