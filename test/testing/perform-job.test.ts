// performJob: one handler run as a node runs it, answering with the outcome record.
import { expect } from 'chai';
import path from 'node:path';
import { createTestNexq, InvalidJobError, JobArgsError, TestNexq, UnknownJobClassError } from '../../src/testing';
import { brokenJobs } from '../support/paths';
import { jobsDir, rejection, resetRuns, runs } from './support';

class Money {
  constructor(readonly cents: number) {}
}

describe('nexq/testing performJob', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    resetRuns();
    nexq = createTestNexq({ jobsDir });
  });

  it('resolves to { ok: true } when the handler succeeds', async () => {
    expect(await nexq.performJob('Push', [1, 'two'])).to.deep.equal({ ok: true });
    expect(runs()[0].args).to.deep.equal([1, 'two']);
  });

  it('runs the handler with the job context as `this`, in queue "default" unless told', async () => {
    await nexq.performJob('Push', []);
    const { context } = runs()[0];
    expect(context).to.include({ queue: 'default', className: 'Push', retryCount: 0 });
    expect(context.jid).to.match(/^[0-9a-f-]{36}$/);
    expect(context.enqueuedAt).to.be.a('number');
  });

  it('takes the queue, jid and retryCount of the context from its options', async () => {
    await nexq.performJob('Push', [], { queue: 'mail', jid: 'j-1', retryCount: 2 });
    expect(runs()[0].context).to.include({ queue: 'mail', jid: 'j-1', retryCount: 2 });
  });

  it('resolves to { ok: false, error } with the class and message of what the handler threw', async () => {
    const outcome = await nexq.performJob('Boom', ['nope']);
    expect(outcome.ok).to.equal(false);
    expect(!outcome.ok && outcome.error).to.include({ class: 'BoomError', message: 'nope' });
  });

  it('includes the backtrace of the error, as the worker thread does', async () => {
    const outcome = await nexq.performJob('Boom', []);
    expect(!outcome.ok && outcome.error.backtrace).to.be.an('array').that.is.not.empty;
  });

  it('reports a thrown non-Error as NonErrorThrown', async () => {
    const outcome = await nexq.performJob('ThrowString', []);
    expect(!outcome.ok && outcome.error.class).to.equal('NonErrorThrown');
  });

  it('reports a module without perform as HandlerLoadError', async () => {
    const custom = createTestNexq({ jobs: { NoPerform: path.join(brokenJobs, 'NoPerform.js') } });
    const outcome = await custom.performJob('NoPerform', []);
    expect(!outcome.ok && outcome.error.class).to.equal('HandlerLoadError');
  });

  it('rejects a class with no handler with UnknownJobClassError naming it', async () => {
    const err = await rejection(nexq.performJob('NotThere', []));
    expect(err).to.be.instanceOf(UnknownJobClassError);
    expect(err.message).to.equal('cannot run job class "NotThere": no handler is registered for it');
  });

  it('rejects a class name that is not a class name, never treating it as a path', async () => {
    const err = await rejection(nexq.performJob('../Push', []));
    expect(err).to.be.instanceOf(UnknownJobClassError);
    expect(err.message).to.contain('not a valid class name');
  });

  it('finds a handler by the node rules: Elixir.Billing.Invoice and Billing::Invoice', async () => {
    expect(await nexq.performJob('Elixir.Billing.Invoice', [1])).to.deep.equal({ ok: true });
    expect(await nexq.performJob('Billing::Invoice', [2])).to.deep.equal({ ok: true });
    expect(runs().map((r) => r.args[0])).to.deep.equal([1, 2]);
  });

  it('runs an ES module handler with a default export', async () => {
    expect(await nexq.performJob('EsmPush', ['esm'])).to.deep.equal({ ok: true });
    expect(runs()[0]).to.deep.include({ class: 'EsmPush', args: ['esm'] });
  });

  it('gives the handler a JSON copy of the args, not the caller objects', async () => {
    const order = { id: 1 };
    await nexq.performJob('Mutate', [order]);
    expect(order).to.deep.equal({ id: 1 });
    expect(runs()[0].args).to.deep.equal([{ id: 1, touched: true }]);
  });

  const unsafe: Array<[string, unknown[], RegExp]> = [
    ['a function', [() => 1], /args\[0\] is a function \(JSON writes null\)/],
    ['undefined in the array', [1, undefined], /args\[1\] is undefined \(JSON writes null\)/],
    ['undefined in an object', [{ a: undefined }], /args\[0\]\.a is undefined \(JSON drops it\)/],
    ['a BigInt', [{ n: 10n }], /args\[0\]\.n is a BigInt \(JSON cannot write it\)/],
    [
      'a Date',
      [{ when: new Date('2024-01-01T00:00:00Z') }],
      /args\[0\]\.when is a Date \(JSON writes "2024-01-01T00:00:00\.000Z"\)/,
    ],
    ['NaN', [NaN], /args\[0\] is NaN \(JSON writes null\)/],
    ['Infinity', [Infinity], /args\[0\] is Infinity \(JSON writes null\)/],
    ['a Map', [new Map([[1, 2]])], /args\[0\] is a Map \(JSON writes \{\}\)/],
    ['a class instance', [new Money(5)], /args\[0\] is a Money \(JSON writes \{"cents":5\}\)/],
    // eslint-disable-next-line no-sparse-arrays -- the empty slot is the case under test
    ['an empty array slot', [[1, , 3]], /args\[0\]\[1\] is an empty slot \(JSON writes null\)/],
    ['a symbol', [Symbol('s')], /args\[0\] is a symbol/],
    ['a key that is not an identifier', [{ 'a b': () => 1 }], /args\[0\]\["a b"\] is a function \(JSON drops it\)/],
  ];
  for (const [what, args, message] of unsafe) {
    it(`rejects args holding ${what} with JobArgsError saying where and what JSON would do`, async () => {
      const err = await rejection(nexq.performJob('Push', args));
      expect(err).to.be.instanceOf(JobArgsError);
      expect(err.message)
        .to.match(/^args of Push are not JSON-safe/)
        .and.match(message);
      expect(runs()).to.deep.equal([]);
    });
  }

  it('rejects cyclic args with JobArgsError naming the path of the cycle', async () => {
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    const err = (await rejection(nexq.performJob('Push', [node]))) as JobArgsError;
    expect(err).to.be.instanceOf(JobArgsError);
    expect(err.problems).to.deep.equal([
      'args[0].self refers back to a value that contains it (a cycle: JSON cannot write it)',
    ]);
  });

  it('lists every problem of the args, not only the first', async () => {
    const err = (await rejection(nexq.performJob('Push', [undefined, { f: () => 1 }]))) as JobArgsError;
    expect(err.problems).to.have.length(2);
  });

  it('accepts -0, which JSON writes as 0, an equal number (as the real enqueuer does)', async () => {
    expect(await nexq.performJob('Push', [-0, { n: -0 }])).to.deep.equal({ ok: true });
    expect(runs()[0].args).to.deep.equal([0, { n: 0 }]);
  });

  it('rejects unsafe args with an error that is also an InvalidJobError, as enqueue rejects them', async () => {
    expect(await rejection(nexq.performJob('Push', [new Set([1])]))).to.be.instanceOf(InvalidJobError);
  });

  it('accepts the same value twice in the args (shared, not cyclic)', async () => {
    const shared = { x: 1 };
    expect(await nexq.performJob('Push', [shared, shared])).to.deep.equal({ ok: true });
  });

  it('reports a handler that changes its args with a warning in the outcome', async () => {
    const outcome = await nexq.performJob('Mutate', [{ id: 1 }]);
    expect(outcome.ok).to.equal(true);
    expect(outcome.warnings).to.deep.equal([
      'perform changed its args from [{"id":1}] to [{"id":1,"touched":true}]; a retry runs with the original args again, so a job must not rely on changing them',
    ]);
  });

  it('reports a handler that returns a function with a warning in the outcome', async () => {
    const outcome = await nexq.performJob('Returns', ['function']);
    expect(outcome.warnings).to.have.length(1);
    expect(outcome.warnings![0]).to.match(
      /^perform returned a value that is not JSON-safe .*the return value is a function/,
    );
  });

  it('reports a handler that returns a BigInt with a warning in the outcome', async () => {
    const outcome = await nexq.performJob('Returns', ['bigint']);
    expect(outcome.warnings![0]).to.contain('the return value is a BigInt');
  });

  it('has no warnings for a handler that returns a JSON value', async () => {
    expect(await nexq.performJob('Returns', ['json'])).to.deep.equal({ ok: true });
  });

  it('records the jobs the handler enqueues, in fake mode', async () => {
    await nexq.performJob('Relay', ['mail', 'Push', ['next']]);
    expect(nexq.jobs('mail').map((j) => j.args)).to.deep.equal([['next']]);
    expect(runs().map((r) => r.class)).to.deep.equal(['Relay']);
  });

  it('runs the jobs the handler enqueues, in inline mode', async () => {
    const inline = createTestNexq({ mode: 'inline', jobsDir });
    await inline.performJob('Relay', ['mail', 'Push', ['next']]);
    expect(runs().map((r) => r.class)).to.deep.equal(['Relay', 'Push']);
  });

  it("rejects a bad queue with the enqueuer's InvalidJobError", async () => {
    const err = await rejection(nexq.performJob('Push', [], { queue: 'no spaces' }));
    expect(err.name).to.equal('InvalidJobError');
  });

  it('rejects a retryCount that is not an integer >= 0', async () => {
    const err = await rejection(nexq.performJob('Push', [], { retryCount: -1 }));
    expect(err.message).to.equal('retryCount must be an integer >= 0');
  });
});
