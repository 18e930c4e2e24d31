// What the manager knows of the queues it serves (src/fetch/served-queues.ts): which wake signals a
// fetch already answered, and a signal heard while a fetch was out late.
import { expect } from 'chai';
import { ServedQueues } from '../../src/fetch/served-queues';
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

  it('lists the queues served with their settings only', () => {
    expect(served().list()).to.deep.equal([
      { name: 'a', concurrency: 5 },
      { name: 'b', concurrency: 5 },
    ]);
  });
});
