// Results and progress, on real worker threads against real Redis: a handler's return value is kept
// only when the job or its class asks (keepResult), bounded, with its TTL, read by `result` and
// awaited by `waitFor`; `this.progress` reaches job:progress, `show` and the running-jobs listing.
import { expect } from 'chai';
import path from 'node:path';
import { readRunningJobs } from '../../src/admin/processes';
import type { JobEventMap } from '../../src/events/job-events';
import { ResultTimeoutError, ResultTooLargeError } from '../../src/errors';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';

const jobsDir = path.join(repoRoot, 'test', 'fixtures', 'result-jobs');

describe('results and progress', () => {
  const t = useNodes();

  it('keeps the return value of a job enqueued with keepResult, for that many seconds', async () => {
    const node = await t.start({ jobsDir });
    const jid = await node.enqueue('default', 'Echo', [{ total: 42, names: ['a', 'b'] }], { keepResult: 30 });
    expect(await node.waitFor(jid, { timeout: 10_000 })).to.deep.equal({ total: 42, names: ['a', 'b'] });
    expect(await node.result(jid)).to.deep.equal({ total: 42, names: ['a', 'b'] });
    const ttl = await t.redis.ttl(t.keys.result(jid));
    expect(ttl).to.be.within(1, 30);
  });

  it('keeps nothing for a job that does not ask: no key is written', async () => {
    const node = await t.start({ jobsDir });
    const jid = await node.enqueue('default', 'Echo', ['value']);
    await node.drain();
    expect(await node.result(jid)).to.equal(undefined);
    expect(await t.redis.keys(t.keys.result('*'))).to.deep.equal([]);
    const err = await node.waitFor(jid, { timeout: 200 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ResultTimeoutError);
  });

  it('keeps the results of a class whose handler exports keepResult, and wakes a waiter that came first', async () => {
    const node = await t.start({ jobsDir, queues: [] });
    const jid = 'sum-1';
    const waiting = node.waitFor(jid, { timeout: 10_000 });
    await node.enqueue('default', 'Sum', [2, 3], { jid });
    await node.subscribe('default');
    expect(await waiting).to.deep.equal({ sum: 5, jid });
    expect(await t.redis.ttl(t.keys.result(jid))).to.be.within(1, 60);
  });

  it('fails a run whose result is above the limit, with ResultTooLargeError, keeping nothing', async () => {
    const node = await t.start({ jobsDir, maxRetries: 0 });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    const jid = await node.enqueue('default', 'Huge', [], { retry: false });
    await waitFor(() => failures.length === 1, 10_000, 'the failure');
    expect(failures[0].error).to.deep.include({ class: ResultTooLargeError.name, code: 'RESULT_TOO_LARGE' });
    expect(failures[0].error.message).to.match(/above the 1048576 kept/);
    expect(await node.result(jid)).to.equal(undefined);
  });

  it('shows progress in job:progress, show(jid) and the running jobs, and keeps the last', async () => {
    const node = await t.start({ jobsDir, heartbeatInterval: 1 });
    const heard: Array<JobEventMap['job:progress']> = [];
    node.events.on('job:progress', (e) => void heard.push(e));
    const gate = t.out('gate');
    const jid = await node.enqueue('default', 'Steps', [t.url, gate], { keepResult: 10 });
    await waitFor(() => heard.length === 1, 10_000, 'the first progress');
    expect(heard[0]).to.deep.include({ jid, class: 'Steps', queue: 'default', progress: { step: 1, of: 2 } });
    expect((await node.show(jid))?.progress).to.deep.equal({ step: 1, of: 2 });
    const { identity } = node.node.ctx;
    await waitFor(
      async () => (await readRunningJobs(node.node.ctx, identity)).find((j) => j.jid === jid)?.progress !== undefined,
      10_000,
      'the progress in the workers hash',
    );
    const [running] = await readRunningJobs(node.node.ctx, identity);
    expect(running.progress).to.deep.equal({ step: 1, of: 2 });
    await t.redis.rpush(gate, 'go');
    expect(await node.waitFor(jid, { timeout: 10_000 })).to.equal('done');
    expect(heard.map((e) => e.progress)).to.deep.equal([{ step: 1, of: 2 }, 100]);
  });

  it('throws InvalidProgressError in the handler for a progress that is not a finite number', async () => {
    const node = await t.start({ jobsDir });
    const failures: Array<JobEventMap['job:failure']> = [];
    node.events.on('job:failure', (e) => void failures.push(e));
    await node.enqueue('default', 'BadProgress', [], { retry: false });
    await waitFor(() => failures.length === 1, 10_000, 'the failure');
    expect(failures[0].error.class).to.equal('InvalidProgressError');
    expect(failures[0].error.message).to.match(/progress must be a finite number \(got Infinity\)/);
  });

  it('refuses a keepResult that is not a positive number of seconds', async () => {
    const node = await t.start({ jobsDir });
    const err = await node.enqueue('default', 'Echo', [], { keepResult: 0 }).catch((e: unknown) => e);
    expect((err as Error).message).to.match(/keepResult must be a number of seconds > 0/);
  });
});
