// What the manager knows of the queues it serves (src/fetch/served-queues.ts): which wake signals a
// fetch already answered, a signal heard while a fetch was out late, and how many jobs a queue may
// hold ahead of its free slots.
import { expect } from 'chai';
import { ServedQueues, SHORT_JOBS_AHEAD } from '../../src/fetch/served-queues';
import { Keys } from '../../src/redis/keys';

const served = () =>
  new ServedQueues(
    [
      { name: 'a', concurrency: 5 },
      { name: 'b', concurrency: 5 },
    ],
    new Keys('t'),
    'n1',
    () => 0,
  );

describe('served queues', () => {
  it('counts a signal as answered by a fetch of its queue sent after it was heard, and by no other', () => {
    const queues = served();
    const heard = queues.heard();
    expect(queues.answeredSince('a', heard), 'nothing sent yet').to.equal(false);
    queues.sending(['a']);
    expect(queues.answeredSince('a', heard)).to.equal(true);
    expect(queues.answeredSince('b', heard), 'a fetch of another queue').to.equal(false);
    // Heard after that fetch was sent: the fetch may have run before the push.
    expect(queues.answeredSince('a', queues.heard())).to.equal(false);
  });

  it('turns an idle queue to be fetched on a signal, unless a fetch sent since answered it', () => {
    const queues = served();
    const key = new Keys('t').queue('a');
    const notLate = () => false;
    queues.record('a', 'empty');
    const heard = queues.heard();
    expect(queues.woken(key, heard, notLate)).to.equal(true);
    expect(queues.get('a')?.state).to.equal('unknown');
    queues.sending(['a']);
    queues.record('a', 'empty');
    expect(queues.woken(key, heard, notLate), 'answered by the fetch sent after it').to.equal(false);
    expect(queues.get('a')?.state).to.equal('empty');
    expect(queues.woken(new Keys('t').queue('other'), queues.heard(), notLate), 'not served here').to.equal(false);
  });

  it('fetches again a queue whose late fetch emptied it while a signal was heard, once', () => {
    const queues = served();
    const late = (queue: string) => queue === 'a' || queue === 'b';
    queues.record('a', 'more');
    queues.record('b', 'more');
    // Busy, with a fetch out late: nothing to do now.
    expect(queues.woken(null, queues.heard(), late)).to.equal(false);
    queues.record('a', 'empty'); // the late answer
    expect(queues.get('a')?.state).to.equal('unknown');
    queues.record('a', 'empty');
    expect(queues.get('a')?.state, 'the next empty answer stands').to.equal('empty');
    // A fetch that left jobs behind needs nothing more: the signal is spent with it.
    queues.record('b', 'more');
    queues.record('b', 'empty');
    expect(queues.get('b')?.state).to.equal('empty');
  });

  it('fetches again an idle queue whose fetch out (the waiting fetch) answers empty after a signal', () => {
    const queues = served();
    const key = new Keys('t').queue('a');
    const late = (queue: string) => queue === 'a';
    queues.record('a', 'empty');
    queues.sending(['a']); // the waiting fetch, sent before the push the signal tells of
    // Its fetch may have run before that push: no decision now, but fetched again if it answers empty.
    expect(queues.woken(key, queues.heard(), late)).to.equal(false);
    queues.record('a', 'empty');
    expect(queues.get('a')?.state).to.equal('unknown');
  });

  it('lists the queues served with their settings only', () => {
    expect(served().list()).to.deep.equal([
      { name: 'a', concurrency: 5 },
      { name: 'b', concurrency: 5 },
    ]);
  });

  it('keeps more jobs ahead of a queue whose jobs run shorter than a refill, up to a cap, never fewer than prefetch gives', () => {
    const pace = new Map<string, number>();
    let ahead = 0;
    const queues = new ServedQueues(
      [
        { name: 'a', concurrency: 5 },
        { name: 'one', concurrency: 1 },
      ],
      new Keys('t'),
      'n1',
      (q) => (q.concurrency > 1 ? q.concurrency : 0),
      () => ahead,
      (queue) => pace.get(queue),
    );
    queues.record('a', 'more');
    queues.record('one', 'more');
    expect(queues.reserveRoom('a'), 'no run heard yet: prefetch × concurrency').to.equal(5);
    pace.set('a', 5);
    expect(queues.reserveRoom('a'), 'jobs of 5 ms').to.equal(5);
    pace.set('a', 0.5);
    expect(queues.reserveRoom('a'), 'five slots finish ten jobs of 0.5 ms in a refill').to.equal(10);
    pace.set('a', 0);
    expect(queues.reserveRoom('a'), 'jobs that end in the turn they start').to.equal(SHORT_JOBS_AHEAD);
    ahead = SHORT_JOBS_AHEAD - 1;
    expect(queues.mayHandAhead('a')).to.equal(true);
    ahead = SHORT_JOBS_AHEAD;
    expect(queues.mayHandAhead('a')).to.equal(false);
    // A fetch asked for the whole room, then its jobs' pace rose while it was out: what it brings is
    // still handed over, not put back.
    ahead = 0;
    expect(queues.reserveRoom('a')).to.equal(SHORT_JOBS_AHEAD);
    pace.set('a', 5);
    ahead = SHORT_JOBS_AHEAD - 1;
    expect(queues.mayHandAhead('a')).to.equal(true);
    ahead = 0;
    // A share below 1 (here 1 of 5 slots) stays that share for jobs of 1 ms or more.
    const low = new ServedQueues(
      [{ name: 'low', concurrency: 5 }],
      new Keys('t'),
      'n1',
      () => 1,
      () => 0,
      () => 1,
    );
    low.record('low', 'more');
    expect(low.reserveRoom('low'), 'jobs of 1 ms, prefetch 0.2').to.equal(1);
    pace.set('one', 0);
    expect(queues.reserveRoom('one'), 'a queue that takes none ahead still takes none').to.equal(0);
    expect(queues.mayHandAhead('one')).to.equal(false);
  });
});
