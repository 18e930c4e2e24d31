// Inline mode: each enqueue runs its job's handler at once, in-process, and rejects if it fails.
import { expect } from 'chai';
import { createTestNexq, InvalidJobError, JobFailedError, TestNexq } from '../../src/testing';
import { jobsDir, rejection, resetRuns, runs, thrown } from './support';

describe('nexq/testing inline mode', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    resetRuns();
    nexq = createTestNexq({ mode: 'inline', jobsDir });
  });

  it('runs the handler before enqueue resolves, and resolves to the jid', async () => {
    const jid = await nexq.enqueue('mail', 'Push', ['bob']);
    expect(runs()).to.have.length(1);
    expect(runs()[0].args).to.deep.equal(['bob']);
    expect(runs()[0].context).to.include({ jid, queue: 'mail', className: 'Push' });
  });

  it('gives the handler the enqueued_at of the payload it encoded', async () => {
    await nexq.enqueue('default', 'Push', []);
    expect(runs()[0].context.enqueuedAt).to.be.a('number');
  });

  it('rejects with JobFailedError when the handler throws', async () => {
    const err = await rejection(nexq.enqueue('default', 'Boom', ['inline failure']));
    expect(err).to.be.instanceOf(JobFailedError);
    expect(err.message).to.match(/^job Boom \(jid [\w-]+, queue "default"\) failed: BoomError: inline failure$/);
  });

  it('rejects when the handler throws a non-Error, saying what was thrown', async () => {
    const err = (await rejection(nexq.enqueue('default', 'ThrowString', []))) as JobFailedError;
    expect(err.error.class).to.equal('NonErrorThrown');
    expect(err.message).to.contain("'not an error object'");
  });

  it('rejects a class with no handler, naming it', async () => {
    const err = await rejection(nexq.enqueue('default', 'Missing', []));
    expect(err.message).to.contain('UnknownJobClassError: cannot run job class "Missing"');
  });

  it('runs a job scheduled for later at once', async () => {
    await nexq.enqueueIn('default', 3600, 'Push', ['later']);
    await nexq.enqueueAt('default', new Date(Date.now() + 86_400_000), 'Push', ['tomorrow']);
    expect(runs().map((r) => r.args[0])).to.deep.equal(['later', 'tomorrow']);
  });

  it('stamps enqueued_at on a scheduled job it runs, as the scheduler does', async () => {
    await nexq.enqueueIn('default', 3600, 'Push', []);
    expect(runs()[0].context.enqueuedAt).to.be.a('number');
  });

  it('runs the jobs a handler enqueues inline too, inside the handler', async () => {
    await nexq.enqueue('default', 'Relay', ['mail', 'Push', ['nested']]);
    expect(runs().map((r) => r.class)).to.deep.equal(['Relay', 'Push']);
    expect(runs()[1].context.queue).to.equal('mail');
  });

  it('fails the outer job when a job it enqueues fails', async () => {
    const err = (await rejection(nexq.enqueue('default', 'Relay', ['default', 'Boom', ['deep']]))) as JobFailedError;
    expect(err.job.class).to.equal('Relay');
    expect(err.message).to.contain('BoomError: deep');
  });

  it('runs enqueueAll jobs in order', async () => {
    await nexq.enqueueAll([
      { queue: 'a', class: 'Push', args: [1] },
      { queue: 'b', class: 'Push', args: [2] },
    ]);
    expect(runs().map((r) => r.args[0])).to.deep.equal([1, 2]);
  });

  it('runs nothing from enqueueAll when one job is invalid', async () => {
    const err = await rejection(
      nexq.enqueueAll([
        { queue: 'a', class: 'Push', args: [1] },
        { queue: 'a', class: '', args: [] },
      ]),
    );
    expect(err).to.be.instanceOf(InvalidJobError);
    expect(runs()).to.deep.equal([]);
  });

  it('refuses args JSON would change, naming each, and runs nothing, as the real enqueuer refuses them', async () => {
    const err = await rejection(
      nexq.enqueue('default', 'Push', [{ at: new Date('2024-01-02T03:04:05Z'), skip: undefined }]),
    );
    expect(err).to.be.instanceOf(InvalidJobError);
    expect(err.message).to.equal(
      'args of Push are not JSON-safe: args[0].at is a Date (JSON writes "2024-01-02T03:04:05.000Z"); args[0].skip is undefined (JSON drops it)',
    );
    expect(runs()).to.deep.equal([]);
  });

  it('records nothing: jobs() and the assertions say they need fake mode', () => {
    expect(thrown(() => nexq.jobs()).message).to.match(/jobs\(\) needs fake mode/);
    expect(thrown(() => nexq.assertEnqueued({ class: 'Push' })).message).to.match(/needs fake mode/);
  });
});
