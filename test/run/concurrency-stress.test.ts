// A randomised stress test of the rule every run path must keep: a node never runs more jobs of a
// queue at once than the queue's concurrency, and nodes together never more than its
// globalConcurrency. Measured by the handlers themselves (test/fixtures/stress-jobs/StressRun.js
// logs each run's start, ticks and end in Redis' order; test/support/run-log.ts counts the overlap),
// while jobs are cancelled queued and running, time out, end their own thread, and nodes go quiet,
// stop and leave and rejoin the queue. Only the public API drives the nodes, so the run path
// behind it may change. STRESS_SEED replays a seed; STRESS_VERBOSE=1 prints what each run saw.
import { expect } from 'chai';
import path from 'node:path';
import type { Nexq, NexqStartOptions } from '../../src/nexq';
import { quietProcess } from '../../src/admin/signals';
import { repoRoot } from '../support/paths';
import { NodeTest, useNodes, waitFor } from '../support/node';
import { parseRunLog, peakOverlap, rerunsAfterFinishing, RunLog, runsAcross } from '../support/run-log';
import { seededRandom, StressDriver } from '../support/stress-driver';
import { accountFor } from '../support/stress-accounting';

const stressJobs = path.join(repoRoot, 'test', 'fixtures', 'stress-jobs');
const QUEUE = 'stress';

describe('concurrency under stress, as the handlers see it', function () {
  this.timeout(120_000);
  const t = useNodes();

  /** A driver over `concurrency` slots per node, and the seed that replays it. */
  const setUp = async (concurrency: number) => {
    const seed = Number(process.env.STRESS_SEED) || Math.floor(Math.random() * 2 ** 31);
    const log = t.out('runs');
    const producer = await t.start({ mode: 'enqueuer' });
    const driver = new StressDriver(
      producer,
      t.redis,
      { url: t.url, log, queue: QUEUE, queueKey: t.keys.queue(QUEUE), concurrency },
      seededRandom(seed),
    );
    return { seed, log, producer, driver };
  };

  /** A node serving the stress queue, quick to take a signal and to cut its jobs at stop. */
  const startNode = (queue: { concurrency: number; globalConcurrency?: number }, options: NexqStartOptions = {}) =>
    t.start({
      jobsDir: stressJobs,
      queues: [{ name: QUEUE, ...queue }],
      threads: 2,
      shutdownTimeout: 300,
      heartbeatInterval: 1,
      ...options,
    });

  it('never runs more jobs of a queue on a node than its concurrency', async () => {
    const LIMIT = 4;
    const { seed, log, producer, driver } = await setUp(LIMIT);
    const queue = { concurrency: LIMIT };
    let live: Nexq[] = [];
    // One node at a time, so every run in the log is that node's.
    const first = await startNode(queue);
    live = [first];
    await driver.run({ nodes: () => live, ms: 6000 });
    // Stopped with jobs running: the stop cuts them off, they run again on the next node.
    await driver.longJobStarted();
    await stopAndMark(t, first, log, 'first');
    const timed = await startNode(queue, { threads: LIMIT + 2, jobTimeout: 500 });
    live = [timed];
    await driver.run({ nodes: () => live, ms: 6000, timeouts: true });
    await quiet(t, timed);
    await driver.run({ nodes: () => live, ms: 1500, timeouts: true });
    await stopAndMark(t, timed, log, 'timed');
    const last = await startNode(queue);
    live = [last];
    await driver.cancelsAnswered();
    await last.drain();
    await stopAndMark(t, last, log, 'last');

    const runLog = parseRunLog(await t.redis.lrange(log, 0, -1));
    const { peak, alive } = peakOverlap(runLog.runs);
    const context = `seed ${seed}; at the peak: ${describeRuns(alive)}`;
    for (const [name, at] of runLog.markers) {
      expect(describeRuns(runsAcross(runLog.runs, at)), `runs alive after node ${name} stopped (${context})`).to.equal(
        '',
      );
    }
    expect(peak, `most runs alive at once on one node (${context})`).to.be.at.most(LIMIT);
    // The test proves nothing unless it filled the node.
    expect(peak, `most runs alive at once on one node (${context})`).to.equal(LIMIT);
    await expectAllAccounted(t, producer, driver, runLog, seed);
  });

  it('never runs more jobs of a queue across nodes than its globalConcurrency', async () => {
    const GLOBAL = 4;
    const queue = { concurrency: 3, globalConcurrency: GLOBAL };
    const { seed, log, producer, driver } = await setUp(queue.concurrency);
    const a = await startNode(queue);
    const b = await startNode(queue, { threads: 5, jobTimeout: 500 });
    let live = [a, b];
    await driver.run({ nodes: () => live, ms: 4000, timeouts: true });
    await quiet(t, b);
    await driver.run({ nodes: () => live, ms: 1500, timeouts: true });
    live = [a];
    await stopAndMark(t, b, log, 'b');
    const c = await startNode(queue);
    live = [a, c];
    await driver.run({ nodes: () => live, ms: 4000 });
    live = [c];
    await stopAndMark(t, a, log, 'a');
    await driver.cancelsAnswered();
    await c.drain();
    await stopAndMark(t, c, log, 'c');

    const runLog = parseRunLog(await t.redis.lrange(log, 0, -1));
    const { peak, alive } = peakOverlap(runLog.runs);
    const context = `seed ${seed}; at the peak: ${describeRuns(alive)}`;
    expect(peak, `most runs alive at once across the nodes (${context})`).to.be.at.most(GLOBAL);
    expect(peak, `most runs alive at once across the nodes (${context})`).to.equal(GLOBAL);
    await expectAllAccounted(t, producer, driver, runLog, seed);
  });
});

/** Quiets `node` as `nexq quiet` does (TSTP through Redis), and waits until its beat took the signal. */
async function quiet(t: NodeTest, node: Nexq): Promise<void> {
  const { identity } = node.node.ctx;
  expect(await quietProcess(node.node.ctx, identity)).to.equal(true);
  await waitFor(async () => (await t.redis.hget(t.keys.process(identity), 'quiet')) === 'true', 10_000, 'quiet');
}

/** Stops `node` and marks the log: no run that started before the mark may write after it. */
async function stopAndMark(t: NodeTest, node: Nexq, log: string, name: string): Promise<void> {
  await t.stop(node);
  // A dead thread's last write, sent before the stop returned, is read by Redis before this PING is
  // answered: the mark that follows comes after it.
  await t.redis.ping();
  await t.redis.rpush(log, `M|${name}`);
}

/** Every job is done, dead or waiting for its retry as its runs and its cancel say; none is lost or left behind. */
async function expectAllAccounted(
  t: NodeTest,
  producer: Nexq,
  driver: StressDriver,
  runLog: RunLog,
  seed: number,
): Promise<void> {
  const { fates, problems } = await accountFor(producer, driver.jobs, runLog.runs);
  const twice = rerunsAfterFinishing(runLog).map(({ jid, runs }) => `${jid}: ${describeRuns(runs)}`);
  if (process.env.STRESS_VERBOSE) {
    const { peak } = peakOverlap(runLog.runs);
    const cut = runLog.runs.filter((run) => !run.completed).length;
    console.log(
      `seed ${seed}: ${driver.jobs.size} jobs, ${runLog.runs.length} runs (${cut} cut), peak ${peak}, fates ${JSON.stringify(fates)}`,
    );
  }
  expect(problems, `jobs not accounted for (seed ${seed})`).to.deep.equal([]);
  expect(twice, `jobs run again after a run that finished, its outcome posted (seed ${seed})`).to.deep.equal([]);
  expect(await t.redis.llen(t.keys.queue(QUEUE)), `jobs left in the queue (seed ${seed})`).to.equal(0);
  const backups = await t.redis.keys(t.keys.anyBackupPattern);
  expect(backups, `backup lists left after the nodes stopped (seed ${seed})`).to.deep.equal([]);
}

function describeRuns(runs: RunLog['runs']): string {
  return runs.map((run) => `${run.jid}#${run.id}@${run.thread}${run.completed ? '' : ' (cut)'}`).join(', ');
}
