// Chaos: a node with the default identity killed with -9 and restarted at once on the same host
// gets its id back and re-enqueues its own backup lists at boot, without waiting for a reaper.
// Prints the time from the restart to the last job done.
import { expect } from 'chai';
import { Nexq } from '../../src/nexq';
import { waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import { expectAlive, kill9, startNodeProcess, useChaosRedis } from './cluster';

const JOBS = 40;
const CONCURRENCY = 20;
/** Far longer than the test: no reaper may recover the killed node's jobs. */
const NODE_TIMEOUT = 120;

describe('chaos: restart with the default identity', function () {
  const t = useChaosRedis();

  const startNode = async () => {
    const node = await startNodeProcess({
      redis: t.server.url,
      namespace: t.ns,
      queues: [{ name: 'default', concurrency: CONCURRENCY }],
      jobsDir: fixturesJobs,
      logLevel: 'info',
      threads: 2,
      heartbeatInterval: 1,
      nodeTimeout: NODE_TIMEOUT,
      nodeCheckInterval: 1,
    });
    t.nodes.push(node);
    return node;
  };

  it('kill -9 then restart: the new process takes the id back and runs every job at once, no reaper', async () => {
    const first = await startNode();
    const producer = await Nexq.start({ redis: t.server.url, namespace: t.ns, mode: 'enqueuer', logLevel: 'error' });
    const done = `${t.ns}:chaos:done`;
    const jids = await producer.enqueueAll(
      Array.from({ length: JOBS }, (_, i) => ({
        queue: 'default',
        class: 'Record',
        args: [t.server.url, done, i, 3000],
      })),
    );
    await producer.stop();
    const backup = t.keys.backup(first.nodeId, 'default');
    await waitFor(async () => (await t.redis.llen(backup)) === CONCURRENCY, 15_000, 'the node to hold its jobs');
    await kill9(first);
    expect(await t.redis.llen(backup)).to.equal(CONCURRENCY);

    const restartedAt = Date.now();
    const second = await startNode();
    expect(second.nodeId).to.equal(first.nodeId);
    const unique = async () =>
      new Set((await t.redis.lrange(done, 0, -1)).map((r) => (JSON.parse(r) as { jid: string }).jid));
    // Well inside the node timeout: only the restarted process itself can have re-enqueued them.
    await waitFor(async () => (await unique()).size === JOBS, 60_000, 'every job done');
    const seconds = (Date.now() - restartedAt) / 1000;
    expect([...(await unique())].sort()).to.deep.equal([...jids].sort());
    expect(second.output()).to.include(`took node id ${first.nodeId} over from pid ${first.child.pid}`);
    expect(second.output()).to.match(/re-enqueued \d+ unfinished job\(s\) of queue default from this node's backup/);
    expect(await t.redis.zrange(t.keys.nodes, 0, -1)).to.deep.equal([first.nodeId]);
    expectAlive([second]);
    console.log(
      `      kill -9 + restart with the default identity: jobs=${JOBS} all done ${seconds.toFixed(1)} s after the restart`,
    );
  });
});
