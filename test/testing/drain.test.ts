// Fake mode's drain: runs recorded jobs in-process, the way a node would, until none is left.
import { expect } from 'chai';
import { createTestNexq, currentTestNexq, InvalidJobError, JobFailedError, TestNexq } from '../../src/testing';
import { sleep } from '../support/node';
import { jobsDir, rejection, resetRuns, runs } from './support';

describe('nexq/testing fake mode: drain', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    resetRuns();
    nexq = createTestNexq({ jobsDir });
  });

  it('runs a recorded job with its args, then forgets it', async () => {
    await nexq.enqueue('default', 'Push', ['bob', { n: 5 }]);
    expect(await nexq.drain()).to.equal(1);
    expect(runs().map((r) => r.args)).to.deep.equal([['bob', { n: 5 }]]);
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('gives the handler the job context as `this`: jid, queue, className, retryCount, enqueuedAt', async () => {
    const jid = await nexq.enqueue('mail', 'Push', []);
    const enqueuedAt = nexq.jobs()[0].payload.enqueued_at;
    await nexq.drain();
    expect(runs()[0].context).to.deep.equal({
      jid,
      queue: 'mail',
      className: 'Push',
      retryCount: 0,
      enqueuedAt,
      nacks: 0,
    });
  });

  it('puts a nacked job back behind the others with its nacks raised, as a node does, and runs it again', async () => {
    await nexq.enqueue('default', 'Nack', [2]);
    await nexq.enqueue('default', 'Push', ['after']);
    expect(await nexq.drain()).to.equal(4);
    expect(runs().map((r) => [r.class, r.class === 'Nack' ? r.context.nacks : r.args[0]])).to.deep.equal([
      ['Nack', 0],
      ['Push', 'after'],
      ['Nack', 1],
      ['Nack', 2],
    ]);
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('runs jobs in the order they were enqueued', async () => {
    for (const n of [1, 2, 3]) await nexq.enqueue('default', 'Push', [n]);
    await nexq.drain();
    expect(runs().map((r) => r.args[0])).to.deep.equal([1, 2, 3]);
  });

  it('drains only the queue it is given', async () => {
    await nexq.enqueue('a', 'Push', ['a']);
    await nexq.enqueue('b', 'Push', ['b']);
    expect(await nexq.drain('a')).to.equal(1);
    expect(runs().map((r) => r.args[0])).to.deep.equal(['a']);
    expect(nexq.jobs().map((j) => j.queue)).to.deep.equal(['b']);
  });

  it('drains every queue when given none', async () => {
    await nexq.enqueue('a', 'Push', ['a']);
    await nexq.enqueue('b', 'Push', ['b']);
    expect(await nexq.drain()).to.equal(2);
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('runs the jobs that handlers enqueue, until none is left', async () => {
    await nexq.enqueue('default', 'Relay', ['default', 'Relay', ['default', 'Push', ['end']]]);
    expect(await nexq.drain()).to.equal(3);
    expect(runs().map((r) => r.class)).to.deep.equal(['Relay', 'Relay', 'Push']);
    expect(runs()[2].args).to.deep.equal(['end']);
  });

  it('leaves recorded a job a handler enqueued into a queue it is not draining', async () => {
    await nexq.enqueue('a', 'Relay', ['b', 'Push', ['later']]);
    expect(await nexq.drain('a')).to.equal(1);
    expect(nexq.jobs('b').map((j) => j.args)).to.deep.equal([['later']]);
  });

  it('runs jobs scheduled in the future too', async () => {
    await nexq.enqueueIn('default', 3600, 'Push', ['in an hour']);
    await nexq.enqueueAt('default', new Date(Date.now() + 86_400_000), 'Push', ['tomorrow']);
    expect(await nexq.drain()).to.equal(2);
    expect(runs().map((r) => r.args[0])).to.deep.equal(['in an hour', 'tomorrow']);
  });

  it('runs jobs in the order a node would: due now first, then scheduled ones by their time', async () => {
    await nexq.enqueueIn('default', 7200, 'Push', ['in two hours']);
    await nexq.enqueueIn('default', 3600, 'Push', ['in an hour']);
    await nexq.enqueue('default', 'Push', ['now']);
    await nexq.drain();
    expect(runs().map((r) => r.args[0])).to.deep.equal(['now', 'in an hour', 'in two hours']);
  });

  it('runs a job a handler enqueues for now before the jobs scheduled later', async () => {
    await nexq.enqueueIn('default', 3600, 'Push', ['later']);
    await nexq.enqueue('default', 'Relay', ['default', 'Push', ['follow-up']]);
    await nexq.drain();
    expect(runs().map((r) => r.args[0])).to.deep.equal(['default', 'follow-up', 'later']);
  });

  it('runs a job scheduled by a handler', async () => {
    await nexq.enqueue('default', 'Relay', ['default', 'Push', ['scheduled'], 600]);
    expect(await nexq.drain()).to.equal(2);
    expect(runs()[1].args).to.deep.equal(['scheduled']);
  });

  it('stamps enqueued_at on a scheduled job as it runs, as the scheduler does', async () => {
    await nexq.enqueueIn('default', 60, 'Push', []);
    expect(nexq.jobs()[0].payload.enqueued_at).to.equal(undefined);
    await nexq.drain();
    expect(runs()[0].context.enqueuedAt).to.be.a('number');
  });

  it('drops a job past its ttl without running it, as a node files it in dead', async () => {
    await nexq.enqueue('default', 'Push', ['expired'], { ttl: 0.05 });
    await nexq.enqueue('default', 'Push', ['fresh'], { ttl: 3600 });
    await sleep(100);
    expect(await nexq.drain()).to.equal(1);
    expect(runs().map((r) => r.args[0])).to.deep.equal(['fresh']);
    expect(nexq.jobs()).to.deep.equal([]);
  });

  for (const [way, enqueue] of [
    ['enqueueIn', (n: TestNexq) => n.enqueueIn('default', 0.05, 'Push', ['late'], { ttl: 0.05 })],
    ['enqueueAt', (n: TestNexq) => n.enqueueAt('default', new Date(Date.now() + 50), 'Push', ['late'], { ttl: 0.05 })],
    ['delay', (n: TestNexq) => n.enqueue('default', 'Push', ['late'], { delay: 0.05, ttl: 0.05 })],
  ] as const) {
    it(`${way}: runs a scheduled job its ttl after its time, drops it once past that`, async () => {
      await enqueue(nexq);
      expect(await nexq.drain()).to.equal(1); // drained early: its ttl has not begun
      await enqueue(nexq);
      await sleep(200);
      expect(await nexq.drain()).to.equal(0);
      expect(runs().map((r) => r.args[0])).to.deep.equal(['late']);
    });
  }

  it('never records args JSON would change (a Date), as the real enqueuer refuses them', async () => {
    const err = await rejection(nexq.enqueue('default', 'Push', [new Date('2024-05-01T10:00:00Z')]));
    expect(err).to.be.instanceOf(InvalidJobError);
    expect(err.message).to.contain('args[0] is a Date');
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('rejects with JobFailedError naming the job and its error when a handler throws', async () => {
    const jid = await nexq.enqueue('default', 'Boom', ['it broke']);
    const err = await rejection(nexq.drain());
    expect(err).to.be.instanceOf(JobFailedError);
    expect(err.message).to.equal(`job Boom (jid ${jid}, queue "default") failed: BoomError: it broke`);
    expect((err as JobFailedError).error).to.include({ class: 'BoomError', message: 'it broke' });
  });

  it('keeps what the handler threw as the cause of JobFailedError', async () => {
    await nexq.enqueue('default', 'Boom', ['it broke']);
    const err = (await rejection(nexq.drain())) as JobFailedError;
    expect(err.cause).to.be.instanceOf(Error).and.have.property('name', 'BoomError');
  });

  it('drops the failed job and keeps the jobs not yet run', async () => {
    await nexq.enqueue('default', 'Push', [1]);
    await nexq.enqueue('default', 'Boom', []);
    await nexq.enqueue('default', 'Push', [3]);
    await rejection(nexq.drain());
    expect(runs().map((r) => r.args[0])).to.deep.equal([1]);
    expect(nexq.jobs().map((j) => j.args)).to.deep.equal([[3]]);
  });

  it('fails a job whose class has no handler, naming the class', async () => {
    await nexq.enqueue('default', 'NoSuchJob', []);
    const err = (await rejection(nexq.drain())) as JobFailedError;
    expect(err).to.be.instanceOf(JobFailedError);
    expect(err.error.class).to.equal('UnknownJobClassError');
    expect(err.message).to.contain('cannot run job class "NoSuchJob": no handler is registered for it');
  });

  it('finds handlers by the node rules: Elixir.Billing.Invoice runs Billing/Invoice.js', async () => {
    await nexq.enqueue('default', 'Elixir.Billing.Invoice', [7]);
    await nexq.drain();
    expect(runs()[0]).to.deep.include({ class: 'Billing::Invoice', args: [7] });
  });

  it('runs handlers registered with `jobs`', async () => {
    const custom = createTestNexq({ jobs: { Alias: `${jobsDir}/Push.js` } });
    await custom.enqueue('default', 'Alias', ['via jobs']);
    await custom.drain();
    expect(runs()[0]).to.deep.include({ args: ['via jobs'] });
    expect(runs()[0].context.className).to.equal('Alias');
  });

  it('gives up with an error when jobs keep enqueueing jobs', async () => {
    await nexq.enqueue('default', 'Forever', []);
    const err = await rejection(nexq.drain(undefined, { maxJobs: 25 }));
    expect(err.message).to.match(/drain gave up after 25 jobs: jobs keep enqueueing jobs \(1 left, next: Forever\)/);
  });

  it('refuses a maxJobs that is not an integer >= 1', async () => {
    expect((await rejection(nexq.drain(undefined, { maxJobs: 0 }))).message).to.equal(
      'drain: maxJobs must be an integer >= 1',
    );
  });

  it('makes the running test nexq available to the handler through currentTestNexq()', async () => {
    await nexq.enqueue('default', 'Relay', ['other', 'Push', []]);
    await nexq.drain('default');
    expect(nexq.jobs('other')).to.have.length(1);
  });

  it('has no current test nexq outside a handler run', () => {
    expect(currentTestNexq()).to.equal(undefined);
  });

  it('is refused in inline mode', async () => {
    const inline = createTestNexq({ mode: 'inline', jobsDir });
    expect((await rejection(inline.drain())).message).to.match(/drain\(\) needs fake mode/);
  });
});
