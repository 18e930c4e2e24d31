// The one table of the jobs running on a node: slots, the backup entries live workers hold,
// cancel by jid, and what runs for the heartbeat.
import { expect } from 'chai';
import { RunningJobs } from '../../src/run/running-jobs';

describe('RunningJobs', () => {
  function table(concurrency = 2): RunningJobs {
    const running = new RunningJobs();
    running.slots.add('q', concurrency);
    return running;
  }

  it('takes a slot when a job starts and gives it back once when it finishes, saying whether the queue was full', () => {
    const running = table(2);
    const a = running.start('a', 'q', '{"jid":"a"}');
    const b = running.start('b', 'q', '{"jid":"b"}');
    expect(running.slots.free('q')).to.equal(0);
    expect(running.finish(a)).to.equal(true);
    expect(running.finish(a), 'a second finish of the same job').to.equal(false);
    expect(running.slots.busy('q')).to.equal(1);
    expect(running.finish(b)).to.equal(false);
    expect(running.slots.free('q')).to.equal(2);
    expect(running.size).to.equal(0);
  });

  it('gives a slot back when the thread is done, and keeps the job held until it is settled', () => {
    const running = table(1);
    const raw = '{"jid":"a"}';
    const a = running.start('a', 'q', raw);
    running.started(a);
    expect(running.freeSlot(a), 'the queue was full').to.equal(true);
    expect(running.freeSlot(a), 'a second free of the same slot').to.equal(false);
    expect(running.slots.free('q')).to.equal(1);
    // Its ack is on its way: the reclaim must not put its backup entry back.
    expect(running.unclaimed('q', [raw])).to.deep.equal([]);
    expect(running.list().map((job) => job.jid)).to.deep.equal(['a']);
    const b = running.start('b', 'q', '{"jid":"b"}');
    expect(running.finish(a), 'the slot went back already').to.equal(false);
    expect(running.slots.busy('q')).to.equal(1);
    expect(running.unclaimed('q', [raw])).to.deep.equal([raw]);
    expect(running.finish(b)).to.equal(true);
    expect(running.slots.free('q')).to.equal(1);
  });

  it('counts a payload held by two workers twice, so only the entries beyond them are unclaimed', () => {
    const running = table(3);
    const raw = '{"jid":"x"}';
    const first = running.start('x', 'q', raw);
    running.start('x', 'q', raw);
    expect(running.unclaimed('q', [raw, raw, raw, '{"jid":"y"}'])).to.deep.equal([raw, '{"jid":"y"}']);
    running.finish(first);
    expect(running.unclaimed('q', [raw, raw])).to.deep.equal([raw]);
    expect(running.unclaimed('other', [raw])).to.deep.equal([raw]);
  });

  it('cancels every running copy of a jid through its worker, and says when none runs here', () => {
    const running = table(3);
    const cancelled: string[] = [];
    const one = running.start('x', 'q', 'r1');
    const two = running.start('x', 'q', 'r2');
    running.attach(one, { cancel: () => cancelled.push('one') });
    running.attach(two, { cancel: () => cancelled.push('two') });
    expect(running.cancel('x')).to.equal(true);
    expect(cancelled).to.deep.equal(['one', 'two']);
    running.finish(one);
    running.finish(two);
    expect(running.cancel('x')).to.equal(false);
  });

  it('lists what runs, with the queue, the payload and when it started, once its thread started it', () => {
    const running = table();
    const before = Date.now() / 1000;
    const a = running.start('a', 'q', 'raw-a');
    // Handed to a thread, it may wait there for a slot: not running yet.
    expect(running.list()).to.deep.equal([]);
    expect(running.size).to.equal(1);
    running.started(a);
    const [job] = running.list();
    expect(job).to.include({ jid: 'a', queue: 'q', raw: 'raw-a' });
    expect(job.runAt).to.be.at.least(before);
  });
});
