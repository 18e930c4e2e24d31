// Bad input to enqueue is refused before anything is written, on every way of enqueueing: args JSON
// would change, unknown per-job options.
import { expect } from 'chai';
import { InvalidJobError, JobOptions } from '../../src/job/job';
import type { Nexq } from '../../src/nexq';
import { NodeTest, useNodes } from '../support/node';

class Money {
  constructor(readonly cents: number) {}
}

async function nothingWritten(t: NodeTest): Promise<void> {
  expect(await t.redis.keys(`${t.ns}:*`)).to.deep.equal([]);
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e as Error,
  );
  expect(err).to.be.instanceOf(InvalidJobError);
  return err;
}

/** Every way of enqueueing one job, each in the future where it takes a time. */
const ways: Array<[string, (n: Nexq, args: unknown[], options?: JobOptions) => Promise<unknown>]> = [
  ['enqueue', (n, args, options) => n.enqueue('default', 'Record', args, options)],
  ['enqueueIn', (n, args, options) => n.enqueueIn('default', 60, 'Record', args, options)],
  ['enqueueAt', (n, args, options) => n.enqueueAt('default', new Date(Date.now() + 60_000), 'Record', args, options)],
  ['enqueueAll', (n, args, options) => n.enqueueAll([{ queue: 'default', class: 'Record', args: [1] }, { queue: 'default', class: 'Record', args, options }])],
  ['enqueueResult', (n, args, options) => n.enqueueResult('default', 'Record', args, options)],
];

describe('enqueue refuses args that JSON would change', () => {
  const t = useNodes();

  const unsafe: Array<[string, unknown[], string]> = [
    ['a function', [{ cb: () => 1 }], 'args[0].cb is a function (JSON drops it)'],
    ['undefined', [1, undefined], 'args[1] is undefined (JSON writes null)'],
    ['a Date', [{ when: new Date('2024-01-01T00:00:00Z') }], 'args[0].when is a Date (JSON writes "2024-01-01T00:00:00.000Z")'],
    ['NaN', [NaN], 'args[0] is NaN (JSON writes null)'],
    ['Infinity', [{ n: Infinity }], 'args[0].n is Infinity (JSON writes null)'],
    ['a BigInt', [[1n]], 'args[0][0] is a BigInt (JSON cannot write it)'],
    ['a Map', [new Map([['a', 1]])], 'args[0] is a Map (JSON writes {})'],
    ['a Set', [new Set([1])], 'args[0] is a Set (JSON writes {})'],
    ['a symbol', [Symbol('s')], 'args[0] is a symbol (JSON writes null)'],
    ['a class instance', [{ price: new Money(5) }], 'args[0].price is a Money (JSON writes {"cents":5})'],
  ];
  for (const [what, args, problem] of unsafe) {
    it(`refuses ${what} on every way of enqueueing, naming its path, and writes nothing`, async () => {
      const producer = await t.start({ mode: 'enqueuer' });
      for (const [way, enqueue] of ways) {
        const err = await refusal(enqueue(producer, args));
        expect(err.message, way).to.equal(`args of Record are not JSON-safe: ${problem}`);
      }
      await nothingWritten(t);
    });
  }

  it('writes plain values as they are, -0 as 0', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueue('default', 'Record', ['a', 1.5, true, null, { list: [1, { b: [] }] }, -0]);
    const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    expect(JSON.parse(raw).args).to.deep.equal(['a', 1.5, true, null, { list: [1, { b: [] }] }, 0]);
  });
});

describe('enqueue refuses per-job options it does not know', () => {
  const t = useNodes();

  it('refuses `retries` on every way of enqueueing, suggesting `retry`, and writes nothing', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const [way, enqueue] of ways) {
      const err = await refusal(enqueue(producer, [], { retries: 3 } as JobOptions));
      expect(err.message, way).to.match(/^unknown job option `retries` \(did you mean `retry`\?\); the options are retry, jid, /);
    }
    await nothingWritten(t);
  });

  it('names an unknown option without a guess when none is close', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const err = await refusal(producer.enqueue('default', 'Record', [], { priority: 1 } as JobOptions));
    expect(err.message).to.match(/^unknown job option `priority`; the options are /);
  });

  it('refuses an unknown option of `unique`, suggesting the one meant', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const err = await refusal(producer.enqueue('default', 'Record', [], { unique: { for: 60, unitl: 'start' } } as unknown as JobOptions));
    expect(err.message).to.equal('unknown job option `unique.unitl` (did you mean `unique.until`?); the options are for, until, key');
    await nothingWritten(t);
  });

  it('takes every known option, `backtrace` included, and lets an unknown one set to undefined through', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const options = { retry: 2, jid: 'j1', delay: 5, ttl: 5, maxlen: 10, atMostOnce: true, unique: { for: 5, until: 'start', key: 'k' }, backtrace: true, extra: undefined };
    expect(await producer.enqueue('default', 'Record', [], options as JobOptions)).to.equal('j1');
  });
});
