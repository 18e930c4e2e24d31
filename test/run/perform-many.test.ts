// performMany on real worker threads against real Redis: a module's jobs of one queue go to its
// handler in chunks of up to `chunk.size` (a lone job after `chunk.waitMs`), each job of a chunk
// holds one of its queue's slots, and each is settled on its own, as a single job would be:
// its result kept, a failure retried, a chunk's throw failing them all, a wrong-length answer
// failing them all with PerformManyResultError; a thread dying mid-chunk, or a stop that cuts a
// chunk off, loses none of its jobs.
import { expect } from 'chai';
import path from 'node:path';
import type { JobEventMap } from '../../src/events/job-events';
import type { JobOptions } from '../../src/job/job';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';

const jobsDir = path.join(repoRoot, 'test', 'fixtures', 'many-jobs');

interface Call {
  size: number;
  values: unknown[];
  jids: string[];
  queue: string;
}

describe('performMany: many jobs per handler call', () => {
  const t = useNodes();

  /** Enqueues `values` as Bulk jobs reporting to `key` while no node serves `queue`; their jids. */
  async function enqueue(
    node: Awaited<ReturnType<typeof t.start>>,
    key: string,
    values: unknown[],
    options = {},
    jobOptions: JobOptions = {},
  ) {
    const jids: string[] = [];
    for (const value of values)
      jids.push(await node.enqueue('default', 'Bulk', [t.url, key, value, options], jobOptions));
    return jids;
  }

  it('fills chunks to their size, runs the rest after waitMs, and keeps each job its own result', async () => {
    const node = await t.start({ jobsDir, queues: [], concurrency: 20 });
    const key = t.out('calls');
    const jids = await enqueue(node, key, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    await node.subscribe('default');
    for (const [i, jid] of jids.entries())
      expect(await node.waitFor(jid, { timeout: 10_000 })).to.deep.equal({ doubled: (i + 1) * 2 });
    const calls = (await t.records(key)) as Call[];
    expect(calls.map((call) => call.size).sort()).to.deep.equal([2, 5, 5]);
    expect(calls.flatMap((call) => call.jids).sort()).to.deep.equal([...jids].sort());
    await node.drain();
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
  });

  it('runs a lone job once waitMs has passed, as a chunk of one', async () => {
    const node = await t.start({ jobsDir });
    const key = t.out('calls');
    const [jid] = await enqueue(node, key, [21]);
    expect(await node.waitFor(jid, { timeout: 10_000 })).to.deep.equal({ doubled: 42 });
    expect(((await t.records(key)) as Call[]).map((call) => call.size)).to.deep.equal([1]);
  });

  it('under a rate limit, runs what one fetch took at once rather than wait for the chunk to fill', async () => {
    // Patient's chunks wait a minute to fill; the fetch counts a start when it takes the job, so a
    // chunk of a rate-limited queue may not hold its jobs back into another window.
    const node = await t.start({ jobsDir, queues: [{ name: 'default', rateLimit: { limit: 100, per: 1 } }] });
    const key = t.out('calls');
    await node.enqueue('default', 'Patient', [t.url, key, 7]);
    await waitFor(async () => (await t.records(key)).length > 0, 15_000, 'the chunk ran');
    expect(((await t.records(key)) as Call[]).map((call) => call.values)).to.deep.equal([[7]]);
  });

  it('counts each job of a chunk against its queue concurrency: a chunk is never larger, nor more run at once', async () => {
    const node = await t.start({ jobsDir, queues: [], threads: 2, concurrency: 3 });
    const key = t.out('calls');
    const jids = await enqueue(node, key, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], { sleepMs: 100 });
    await node.subscribe('default');
    for (const jid of jids) await node.waitFor(jid, { timeout: 10_000 });
    const calls = (await t.records(key)) as Call[];
    expect(Math.max(...calls.map((call) => call.size))).to.equal(3);
    expect(calls.reduce((sum, call) => sum + call.size, 0)).to.equal(11);
    expect(Number(await t.redis.get(`${key}:max`))).to.be.at.most(3);
  });

  it('fails every job of a chunk that throws, each retried on its own', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    const jids = await enqueue(node, t.out('calls'), [1, 2, 3], { throw: true });
    await node.subscribe('default');
    await waitFor(() => failures.length === 3, 10_000, 'three failures');
    expect(failures.map((f) => f.jid).sort()).to.deep.equal([...jids].sort());
    for (const failure of failures) expect(failure.error).to.deep.include({ message: 'the whole chunk failed' });
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 3, 10_000, 'three jobs in retry');
    const retried = (await t.redis.zrange(t.keys.retry('default'), 0, -1)).map((raw) => JSON.parse(raw));
    expect(retried.map((job) => job.jid).sort()).to.deep.equal([...jids].sort());
    for (const job of retried) expect(job.error_message).to.equal('the whole chunk failed');
  });

  it('fails only the job whose entry is an Error; the others of its chunk succeed', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const jids = await enqueue(node, t.out('calls'), [1, 'fail-me', 3], {});
    await node.subscribe('default');
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 1, 10_000, 'one job in retry');
    const [failed] = (await t.redis.zrange(t.keys.retry('default'), 0, -1)).map((raw) => JSON.parse(raw));
    expect(failed).to.deep.include({ jid: jids[1], error_message: 'fail-me failed' });
    expect(await node.waitFor(jids[0], { timeout: 10_000 })).to.deep.equal({ doubled: 2 });
    expect(await node.waitFor(jids[2], { timeout: 10_000 })).to.deep.equal({ doubled: 6 });
  });

  it('fails every job of a chunk whose answer has the wrong length, with PerformManyResultError', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    await enqueue(node, t.out('calls'), [1, 2], { short: true });
    await node.subscribe('default');
    await waitFor(() => failures.length === 2, 10_000, 'two failures');
    for (const failure of failures) {
      expect(failure.error.class).to.equal('PerformManyResultError');
      expect(failure.error.message).to.match(/one result per job \(2\), not an array of 1/);
    }
  });

  it('keeps every job of a running chunk in the backup list; a thread dying mid-chunk fails them all into retry', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    const gate = t.out('gate');
    const key = t.out('calls');
    const jids = await enqueue(node, key, [1, 2, 3], { gate, exit: true });
    await node.subscribe('default');
    await t.waitForRecords(key, 1);
    const backup = t.keys.backup(node.node.ctx.config.nodeId, 'default');
    const held = (await t.redis.lrange(backup, 0, -1)).map((raw) => JSON.parse(raw).jid);
    expect(held.sort()).to.deep.equal([...jids].sort());
    await t.redis.rpush(gate, 'go');
    await waitFor(() => failures.length === 3, 10_000, 'three failures');
    for (const failure of failures) expect(failure.error.class).to.equal('WorkerThreadExited');
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 3, 10_000, 'three jobs in retry');
    expect(await t.redis.llen(backup)).to.equal(0);
  });

  it('puts back every job of a chunk that a stop cuts off', async () => {
    const node = await t.start({ jobsDir, queues: [], shutdownTimeout: 200 });
    const key = t.out('calls');
    const jids = await enqueue(node, key, [1, 2, 3, 4], { gate: t.out('gate') });
    await node.subscribe('default');
    await t.waitForRecords(key, 1);
    await t.stop(node);
    const queued = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((raw) => JSON.parse(raw).jid);
    expect(queued.sort()).to.deep.equal([...jids].sort());
  });

  it('files each job of a chunk in dead on its own, running the exhausted hook once per job', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const key = t.out('calls');
    const jids = await enqueue(node, key, [1, 2], { throw: true }, { retry: false });
    await node.subscribe('default');
    const exhausted = await t.waitForRecords(`${key}:exhausted`, 2);
    expect(exhausted.map((e) => e.jid).sort()).to.deep.equal([...jids].sort());
    for (const e of exhausted) expect(e.message).to.equal('the whole chunk failed');
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(2);
  });

  it('cancels one job of a running chunk: its thread stops, the others run again', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const key = t.out('calls');
    const gate = t.out('gate');
    const jids = await enqueue(node, key, [1, 2, 3], { gate });
    await node.subscribe('default');
    await t.waitForRecords(key, 1);
    expect(await node.cancel(jids[0])).to.equal(true);
    const [, again] = (await t.waitForRecords(key, 2)) as Call[];
    expect([...again.jids].sort()).to.deep.equal([jids[1], jids[2]].sort());
    await t.redis.rpush(gate, 'go');
    expect(await node.waitFor(jids[1], { timeout: 10_000 })).to.deep.equal({ doubled: 4 });
    expect(await node.waitFor(jids[2], { timeout: 10_000 })).to.deep.equal({ doubled: 6 });
    const [dead] = (await t.redis.zrange(t.keys.dead('default'), 0, -1)).map((raw) => JSON.parse(raw));
    expect(dead.jid).to.equal(jids[0]);
  });

  it('applies jobTimeout to the whole call: every job of a chunk that runs over fails with JobTimeoutError', async () => {
    const node = await t.start({ jobsDir, queues: [], jobTimeout: 300 });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    const jids = await enqueue(node, t.out('calls'), [1, 2, 3], { gate: t.out('gate') });
    await node.subscribe('default');
    await waitFor(() => failures.length === 3, 10_000, 'three failures');
    expect(failures.map((f) => f.jid).sort()).to.deep.equal([...jids].sort());
    for (const failure of failures) expect(failure.error.class).to.equal('JobTimeoutError');
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 3, 10_000, 'three jobs in retry');
  });

  it('puts back the jobs of a chunk still forming when their queue is unsubscribed, and runs none', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const key = t.out('calls');
    for (const value of [1, 2]) await node.enqueue('default', 'Patient', [t.url, key, value]);
    await node.subscribe('default');
    const backup = t.keys.backup(node.node.ctx.config.nodeId, 'default');
    await waitFor(async () => (await t.redis.llen(backup)) === 2, 10_000, 'both jobs taken');
    await node.unsubscribe('default');
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 2, 10_000, 'both jobs back');
    expect(await t.redis.llen(backup)).to.equal(0);
    expect(await t.records(key)).to.deep.equal([]);
  });
});
