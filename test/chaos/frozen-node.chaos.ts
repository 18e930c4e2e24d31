// Chaos: one of three node processes is frozen with SIGSTOP for longer than nodeTimeout, so a
// survivor's reaper declares it dead and re-enqueues its backup list, then resumed with SIGCONT.
// The jobs it held fetched ahead (in its backup list, not started) are the others' now: it must
// not start them from memory. Only the jobs it really had running may run twice; it says it was
// declared dead, and goes on working as a new member.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { Nexq } from '../../src/nexq';
import { freshNamespace } from '../support/global-hooks';
import { sleep, waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { expectAlive, kill9, NodeProcess, startNodeProcess, stopGracefully } from './cluster';
import { everyConfirmedJobRan } from './confirmed-runs';

const JOBS = 240;
const CONCURRENCY = 4;
const JOB_MS = 1000;
const NODE_TIMEOUT = 3;

describe('chaos: a frozen node', function () {
  let server: RedisServer;
  let redis: Redis;
  let nodes: NodeProcess[] = [];
  let ns: string;
  let keys: Keys;

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
    await server.stop();
  });

  const starts = () => `${ns}:chaos:starts`;
  const done = () => `${ns}:chaos:done`;

  /** The jids each process started, by pid ("<pid> <jid>" entries). */
  async function startsBy(pid: number): Promise<string[]> {
    const all = await redis.lrange(starts(), 0, -1);
    return all.filter((entry) => entry.startsWith(`${pid} `)).map((entry) => entry.split(' ')[1]);
  }

  /** The jids in the node's backup list: running there, or fetched ahead. */
  async function backupJids(node: NodeProcess): Promise<string[]> {
    const raws = await redis.lrange(keys.backup(node.nodeId, 'default'), 0, -1);
    return raws.map((raw) => (JSON.parse(raw) as { jid: string }).jid);
  }

  it('starts none of the jobs it held fetched ahead after it was declared dead, and carries on', async () => {
    const producer = await Nexq.start({ redis: server.url, namespace: ns, mode: 'enqueuer', logLevel: 'error' });
    const jobs = Array.from({ length: JOBS }, () => ({
      queue: 'default',
      class: 'StartThenTally',
      args: [server.url, starts(), done(), JOB_MS],
    }));
    const jids = new Set(await producer.enqueueAll(jobs));
    await producer.stop();
    for (let i = 0; i < 3; i++)
      nodes.push(
        await startNodeProcess({
          redis: server.url,
          namespace: ns,
          queues: [{ name: 'default', concurrency: CONCURRENCY }],
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
    const victim = nodes[0];
    const pid = victim.child.pid as number;

    // Freeze it while it holds jobs fetched ahead beside the ones it runs.
    const heldAhead = async () => {
      const started = new Set(await startsBy(pid));
      return (await backupJids(victim)).filter((jid) => !started.has(jid));
    };
    await waitFor(async () => (await heldAhead()).length > 0, 30_000, 'the victim to hold jobs fetched ahead');
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
      `      SIGSTOP one of 3 nodes for >${NODE_TIMEOUT} s: jobs=${JOBS} running-on-frozen=${running.length} ` +
        `fetched-ahead=${reserved.length} duplicates=${runs.length - new Set(runs).size} (at every job done: ${duplicates})`,
    );
    expect(startedTwice, 'jobs it held fetched ahead, started twice').to.deep.equal([]);
    expect(runs.length - new Set(runs).size).to.be.at.most(running.length);
    expect(victim.output()).to.match(/was declared dead: no beat of it reached Redis for \d+\.\d s/);
    expect(victim.output().match(/was declared dead/g)).to.have.length(1);
    expect((await startsBy(pid)).length, 'jobs it started after it resumed').to.be.greaterThan(startedAtFreeze.size);
    expect(await redis.zscore(keys.nodes, victim.nodeId), 'back in the node list').not.to.equal(null);
    expectAlive(nodes);
    for (const node of nodes) expect(await stopGracefully(node), node.output()).to.equal(0);
  });
});
