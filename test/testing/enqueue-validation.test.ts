// Fake mode rejects bad input exactly as the real Enqueuer does: same error class, same message.
import { expect } from 'chai';
import { Enqueuer } from '../../src/actors/enqueuer';
import type { NodeContext } from '../../src/run/node-context';
import { Clock } from '../../src/job/time';
import { createTestNexq, InvalidJobError, TestNexq } from '../../src/testing';
import { jobsDir, rejection } from './support';

/** The real Enqueuer, with no Redis: its checks run before it writes anything. */
function realEnqueuer(): Enqueuer {
  return new Enqueuer({ config: { timestamps: 'seconds' }, clock: new Clock() } as unknown as NodeContext);
}

describe('nexq/testing fake mode: invalid input', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    nexq = createTestNexq({ jobsDir });
  });

  const invalid: Array<[string, (q: { enqueueAll: Enqueuer['enqueueAll'] }) => Promise<unknown>]> = [
    ['a queue name with a colon', (q) => q.enqueueAll([{ queue: 'a:b', class: 'Push', args: [] }])],
    ['an empty class name', (q) => q.enqueueAll([{ queue: 'a', class: '', args: [] }])],
    [
      'args that are not an array',
      (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: 'x' as unknown as unknown[] }]),
    ],
    ['a negative retry', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], options: { retry: -1 } }])],
    ['an empty jid', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], options: { jid: '' } }])],
    ['both at and in', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], at: new Date(), in: 5 }])],
    ['an invalid Date', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], at: new Date('nope') }])],
    [
      'a non-number delay',
      (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], in: '5' as unknown as number }]),
    ],
    ['a BigInt argument', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [1n] }])],
    ['a Date in the args', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [{ when: new Date(0) }] }])],
    [
      'a Map and a function in the args',
      (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [new Map(), () => 1] }]),
    ],
    [
      'a misspelt option',
      (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], options: { retries: 3 } as never }]),
    ],
    ['a ttl of 0', (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], in: 60, options: { ttl: 0 } }])],
    [
      'delay and in together',
      (q) => q.enqueueAll([{ queue: 'a', class: 'Push', args: [], in: 60, options: { delay: 5 } }]),
    ],
    ['a job that is not an object', (q) => q.enqueueAll([null as never])],
    ['a list that is not an array', (q) => q.enqueueAll({} as never)],
  ];
  for (const [what, call] of invalid) {
    it(`rejects ${what} with the real enqueuer's InvalidJobError and message`, async () => {
      const real = await rejection(call(realEnqueuer()));
      const fake = await rejection(call(nexq));
      expect(real).to.be.instanceOf(InvalidJobError);
      expect(fake).to.be.instanceOf(InvalidJobError);
      expect(fake.message).to.equal(real.message);
      expect(nexq.jobs()).to.deep.equal([]);
    });
  }
});
