// Chaos: three node processes work through 5,000 jobs while one is killed with -9, or while
// redis-server itself is killed and restarted. Every jid must run; duplicates are bounded by what
// was in flight. Prints lost / duplicates / recovery time for the closing notes.
import { expect } from 'chai';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { Nexq } from '../../src/nexq';
import { freshNamespace } from '../support/global-hooks';
import { waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { expectAlive, kill9, NodeProcess, startNodeProcess, stopGracefully } from './cluster';

const JOBS = 5000;
const CONCURRENCY = 10;

describe('chaos: no job lost', function () {
  let server: RedisServer;
  let redis: Redis;
  let nodes: NodeProcess[] = [];
  let ns: string;
  let keys: Keys;
  const done = () => `${ns}:chaos:done`;

  beforeEach(async () => {
    // appendfsync always: a write Redis acknowledged survives its kill -9, as in a durable deployment.
    server = await RedisServer.start({ args: ['--appendfsync', 'always'] });
    redis = new Redis(server.url);
    ns = freshNamespace('chaos');
    keys = new Keys(ns);
  });

  afterEach(async () => {
    await Promise.all(nodes.map((n) => kill9(n)));
    nodes = [];
    redis.disconnect();
    await server.stop();
  });

  async function enqueueJobs(): Promise<Set<string>> {
    const producer = await Nexq.start({ redis: server.url, namespace: ns, mode: 'enqueuer', logLevel: 'error' });
    const jids = new Set<string>();
    for (let i = 0; i < JOBS; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, JOBS - i) }, () => ({
        queue: 'default',
        class: 'Tally',
        args: [server.url, done(), 2],
      }));
      for (const jid of await producer.enqueueAll(batch)) jids.add(jid);
    }
    await producer.stop();
    return jids;
  }

  async function startNodes(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startNodeProcess({
          redis: server.url,
          namespace: ns,
          queues: [{ name: 'default', concurrency: CONCURRENCY }],
          jobsDir: fixturesJobs,
          logLevel: 'error',
          pollTimeout: 20,
          threads: 1,
          heartbeatInterval: 1,
          nodeTimeout: 3,
          nodeCheckInterval: 1,
        }),
      );
    }
  }

  async function countRuns(expected: Set<string>) {
    const runs = await redis.lrange(done(), 0, -1);
    const unique = new Set(runs);
    const lost = [...expected].filter((jid) => !unique.has(jid)).length;
    return { runs: runs.length, unique: unique.size, lost, duplicates: runs.length - unique.size };
  }

  /** Where the jobs that did not run are: for a failure message. */
  async function whereAreTheJobs(): Promise<Record<string, number>> {
    const where: Record<string, number> = {};
    for (const key of await redis.keys(`${ns}:*`)) {
      const type = await redis.type(key);
      where[key] = type === 'list' ? await redis.llen(key) : type === 'zset' ? await redis.zcard(key) : -1;
    }
    return where;
  }

  it('a node killed with -9 mid-run: its in-flight jobs are re-run by a survivor, none lost', async () => {
    const jids = await enqueueJobs();
    await startNodes(3);
    await waitFor(async () => (await redis.llen(done())) >= JOBS / 5, 60_000, 'a fifth of the jobs to run');
    const victim = nodes[0];
    await kill9(victim);
    const killedAt = Date.now();
    const backups = await redis.keys(keys.backup(victim.nodeId, '*'));
    const inFlight = (await Promise.all(backups.map((k) => redis.llen(k)))).reduce((a, b) => a + b, 0);
    await waitFor(
      async () => (await redis.keys(keys.backup(victim.nodeId, '*'))).length === 0,
      30_000,
      "the killed node's backup to be recovered",
    );
    const recoveryMs = Date.now() - killedAt;
    await waitFor(async () => (await countRuns(jids)).lost === 0, 90_000, 'every job to run');
    const result = await countRuns(jids);
    console.log(
      `      kill -9 one of 3 nodes: jobs=${JOBS} lost=${result.lost} duplicates=${result.duplicates} in-flight-on-killed=${inFlight} recovery=${recoveryMs}ms`,
    );
    expect(result.lost).to.equal(0);
    expect(result.duplicates).to.be.at.most(inFlight);
    // A victim killed with an empty backup list leaves nothing to recover: its entry goes when a
    // survivor reaps it, after nodeTimeout, maybe after every job already ran.
    await waitFor(async () => (await redis.zcard(keys.nodes)) === 2, 30_000, 'the killed node to leave the node list');
    expectAlive(nodes.slice(1));
    for (const node of nodes.slice(1)) expect(await stopGracefully(node)).to.equal(0);
    expect(await redis.llen(keys.queue('default'))).to.equal(0);
  });

  it('redis-server killed with -9 and restarted mid-run: nodes reconnect by themselves, none lost', async () => {
    const jids = await enqueueJobs();
    await startNodes(3);
    await waitFor(async () => (await redis.llen(done())) >= JOBS / 5, 60_000, 'a fifth of the jobs to run');
    const before = Date.now();
    await server.restart();
    const restartMs = Date.now() - before;
    await waitFor(async () => (await countRuns(jids)).lost === 0, 120_000, 'every job to run after the restart').catch(
      async (err: unknown) => {
        throw new Error(`${(err as Error).message}; ${JSON.stringify(await whereAreTheJobs())}`);
      },
    );
    const result = await countRuns(jids);
    console.log(
      `      redis kill -9 + restart: jobs=${JOBS} lost=${result.lost} duplicates=${result.duplicates} redis-down=${restartMs}ms`,
    );
    expect(result.lost).to.equal(0);
    // Acks that failed while Redis was down are retried with backoff: let them land before the
    // stop, which would put a job whose ack is still pending back in its queue (to run again).
    const inBackup = async () =>
      (await Promise.all((await redis.keys(`${ns}:queue:backup::*`)).map((key) => redis.llen(key)))).reduce(
        (a, b) => a + b,
        0,
      );
    await waitFor(async () => (await inBackup()) === 0, 60_000, 'every ack to land');
    expectAlive(nodes);
    for (const node of nodes) expect(await stopGracefully(node)).to.equal(0);
    for (const key of await redis.keys(`${ns}:queue:*`)) expect(await redis.llen(key), key).to.equal(0);
  });
});
