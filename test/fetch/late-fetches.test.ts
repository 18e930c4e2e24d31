// A poll's fetch calls: the answers that come within LATE_AFTER_MS are handed over at once, a call
// still out (a cluster slot in migration holds it until the move ends) answers later, its queue
// marked out until its answer is handled.
import { expect } from 'chai';
import { FetchAnswer, LateFetches } from '../../src/fetch/late-fetches';
import type { Fetched, FetchCall, FetchQueue } from '../../src/redis/fetch-script';

const queue = (name: string) => ({ name }) as FetchQueue;
const fetched = (job: string): Fetched => ({
  jobs: [[job]],
  states: ['more'],
  waits: [0],
  errors: [],
  classErrors: [],
});

describe('late fetch calls', () => {
  it('hands over the calls that answered, and the late one when it answers, its queue out until then', async () => {
    const reported: FetchAnswer[] = [];
    const late = new LateFetches((answer) => reported.push(answer));
    let answerMoving!: (f: Fetched) => void;
    const moving: FetchCall = { queues: [queue('moving')], answer: new Promise((resolve) => (answerMoving = resolve)) };
    const calm: FetchCall = { queues: [queue('calm')], answer: Promise.resolve(fetched('c1')) };
    const broken: FetchCall = { queues: [queue('broken')], answer: Promise.reject(new Error('master away')) };

    const answers = await late.collect([moving, calm, broken]);
    expect(answers.map((a) => [a.call.queues[0].name, a.fetched?.jobs, a.error?.message])).to.deep.equal([
      ['calm', [['c1']], undefined],
      ['broken', undefined, 'master away'],
    ]);
    expect([late.has('moving'), late.has('calm'), late.has('broken')]).to.deep.equal([true, false, false]);
    expect(reported).to.deep.equal([]);

    answerMoving(fetched('m1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reported.map((a) => [a.call, a.fetched?.jobs])).to.deep.equal([[moving, [['m1']]]]);
    expect(late.has('moving'), 'out until its answer is handled').to.equal(true);
    late.answered(moving);
    expect(late.has('moving')).to.equal(false);
  });

  it('waits for every call when all answer in time, and marks none', async () => {
    const late = new LateFetches(() => expect.fail('no call was late'));
    const calls = ['a', 'b'].map((name) => ({ queues: [queue(name)], answer: Promise.resolve(fetched(name)) }));
    expect((await late.collect(calls)).map((a) => a.fetched?.jobs)).to.deep.equal([[['a']], [['b']]]);
    expect(late.has('a') || late.has('b')).to.equal(false);
  });
});
