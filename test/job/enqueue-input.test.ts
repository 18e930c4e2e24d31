// Bad input to enqueue is refused before anything is written, on every way of enqueueing: args JSON
// would change, unknown per-job options; and a ttl counts from when the job is due, however it is scheduled.
import { expect } from 'chai';
import { InvalidJobError, JobOptions } from '../../src/job/job';
import { nowSeconds } from '../../src/job/time';
import type { Nexq } from '../../src/nexq';
import { NodeTest, sleep, useNodes, waitFor } from '../support/node';

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
  [
    'enqueueAll',
    (n, args, options) =>
      n.enqueueAll([
        { queue: 'default', class: 'Record', args: [1] },
        { queue: 'default', class: 'Record', args, options },
      ]),
  ],
  ['enqueueResult', (n, args, options) => n.enqueueResult('default', 'Record', args, options)],
];

describe('enqueue refuses args that JSON would change', () => {
  const t = useNodes();

  const unsafe: Array<[string, unknown[], string]> = [
    ['a function', [{ cb: () => 1 }], 'args[0].cb is a function (JSON drops it)'],
    ['undefined', [1, undefined], 'args[1] is undefined (JSON writes null)'],
    [
      'a Date',
      [{ when: new Date('2024-01-01T00:00:00Z') }],
      'args[0].when is a Date (JSON writes "2024-01-01T00:00:00.000Z")',
    ],
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
      expect(err.message, way).to.match(
        /^unknown job option `retries` \(did you mean `retry`\?\); the options are retry, jid, /,
      );
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
    const err = await refusal(
      producer.enqueue('default', 'Record', [], { unique: { for: 60, unitl: 'start' } } as unknown as JobOptions),
    );
    expect(err.message).to.equal(
      'unknown job option `unique.unitl` (did you mean `unique.until`?); the options are for, until, key',
    );
    await nothingWritten(t);
  });

  it('takes every known option, `backtrace` included, and lets an unknown one set to undefined through', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const options = {
      retry: 2,
      jid: 'j1',
      delay: 5,
      ttl: 5,
      maxlen: 10,
      atMostOnce: true,
      unique: { for: 5, until: 'start', key: 'k' },
      backtrace: true,
      extra: undefined,
    };
    expect(await producer.enqueue('default', 'Record', [], options as JobOptions)).to.equal('j1');
  });

  it('refuses `delay` together with enqueueIn or enqueueAt, which already say when', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const [way, enqueue] of ways.filter(([w]) => w === 'enqueueIn' || w === 'enqueueAt')) {
      const err = await refusal(enqueue(producer, [], { delay: 5 }));
      expect(err.message, way).to.contain('at most one of "at", "in" and the delay option');
    }
    await nothingWritten(t);
  });
});

describe('a ttl counts from when the job is due', () => {
  const t = useNodes();

  /** The job's expires_at and, when scheduled, its score. */
  async function written(jid: string): Promise<{ expiresAt: number; score?: number }> {
    const entry = await t.redis.zrange(t.keys.schedule('default'), 0, -1, 'WITHSCORES');
    const raw = entry.at(0);
    const score = entry.at(1);
    if (raw !== undefined) {
      expect(JSON.parse(raw).jid).to.equal(jid);
      return { expiresAt: JSON.parse(raw).expires_at, score: Number(score) };
    }
    const [queued] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    expect(JSON.parse(queued).jid).to.equal(jid);
    return { expiresAt: JSON.parse(queued).expires_at };
  }

  const scheduled: Array<[string, (n: Nexq) => Promise<string>]> = [
    ['enqueue with delay', (n) => n.enqueue('default', 'Record', [], { delay: 60, ttl: 10 })],
    ['enqueueIn', (n) => n.enqueueIn('default', 60, 'Record', [], { ttl: 10 })],
    ['enqueueAt', (n) => n.enqueueAt('default', new Date(Date.now() + 60_000), 'Record', [], { ttl: 10 })],
    [
      'enqueueAll with in',
      (n) =>
        n
          .enqueueAll([{ queue: 'default', class: 'Record', args: [], in: 60, options: { ttl: 10 } }])
          .then(([jid]) => jid),
    ],
    [
      'enqueueAll with at',
      (n) =>
        n
          .enqueueAll([
            { queue: 'default', class: 'Record', args: [], at: new Date(Date.now() + 60_000), options: { ttl: 10 } },
          ])
          .then(([jid]) => jid),
    ],
    [
      'enqueueAll with delay',
      (n) =>
        n
          .enqueueAll([{ queue: 'default', class: 'Record', args: [], options: { delay: 60, ttl: 10 } }])
          .then(([jid]) => jid),
    ],
  ];
  for (const [way, enqueue] of scheduled) {
    it(`${way}: expires ttl seconds after its time in the schedule`, async () => {
      const jid = await enqueue(await t.start({ mode: 'enqueuer' }));
      const { expiresAt, score } = await written(jid);
      expect(score).to.be.a('number');
      expect(expiresAt - score!).to.be.closeTo(10, 0.001);
    });
  }

  const now: Array<[string, (n: Nexq) => Promise<string>]> = [
    ['enqueue', (n) => n.enqueue('default', 'Record', [], { ttl: 10 })],
    ['enqueue with delay 0', (n) => n.enqueue('default', 'Record', [], { delay: 0, ttl: 10 })],
    ['enqueueIn 0', (n) => n.enqueueIn('default', 0, 'Record', [], { ttl: 10 })],
    ['enqueueAt a time past', (n) => n.enqueueAt('default', new Date(Date.now() - 60_000), 'Record', [], { ttl: 10 })],
  ];
  for (const [way, enqueue] of now) {
    it(`${way}: runs now and expires ttl seconds from now`, async () => {
      const before = nowSeconds();
      const jid = await enqueue(await t.start({ mode: 'enqueuer' }));
      const { expiresAt, score } = await written(jid);
      expect(score).to.equal(undefined);
      // The node's now is Redis' clock (docs/time.md), this test's is the machine's: the same
      // server here, read a round trip apart, so they may differ by a few milliseconds.
      const slack = 0.05;
      expect(expiresAt).to.be.within(before + 10 - slack, nowSeconds() + 10 + slack);
    });
  }

  for (const ttl of [0, -1, NaN, Infinity]) {
    it(`refuses a ttl of ${ttl}, which no job could meet, and writes nothing`, async () => {
      const producer = await t.start({ mode: 'enqueuer' });
      const err = await refusal(producer.enqueueIn('default', 60, 'Record', [], { ttl }));
      expect(err.message).to.equal('ttl must be a number of seconds > 0 (it counts from when the job is due)');
      await nothingWritten(t);
    });
  }

  const late: Array<[string, (n: Nexq, args: unknown[]) => Promise<unknown>]> = [
    ['enqueueIn', (n, args) => n.enqueueIn('default', 1.5, 'Record', args, { ttl: 1 })],
    ['enqueueAt', (n, args) => n.enqueueAt('default', new Date(Date.now() + 1500), 'Record', args, { ttl: 1 })],
    ['delay', (n, args) => n.enqueue('default', 'Record', args, { delay: 1.5, ttl: 1 })],
  ];
  for (const [way, enqueue] of late) {
    it(`${way}: runs a job due later than its ttl, moved by the scheduler in time`, async () => {
      const out = t.out(way);
      const node = await t.start({ schedulerPollTimeout: 20 });
      await enqueue(node, [t.url, out, way]);
      await t.waitForRecords(out, 1, 5000);
      expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    });
  }

  it('files a scheduled job still not started ttl seconds after its time in dead as expired', async () => {
    const out = t.out('late');
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueIn('default', 0.2, 'Record', [t.url, out, 'late'], { ttl: 0.2 });
    await sleep(600); // due, then past its ttl, with no node to move or run it
    await t.start({ schedulerPollTimeout: 20 });
    const [entry] = await waitFor(
      async () => {
        const d = await t.redis.zrange(t.keys.dead('default'), 0, -1);
        return d.length > 0 && d;
      },
      5000,
      'the expired job in dead',
    );
    expect(JSON.parse(entry)).to.include({ error_class: 'JobExpiredError', error_message: 'expired' });
    expect(await t.redis.llen(out)).to.equal(0);
  });
});
