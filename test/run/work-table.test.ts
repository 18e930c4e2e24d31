// The shared table of per-queue concurrency and busy counts.
import { expect } from 'chai';
import { MAX_QUEUES, WorkTable } from '../../src/run/work-table';
import { FIELDS, recordPace, RUNNING } from '../../workers/work-table-layout';

describe('WorkTable', () => {
  it('gives a new queue all its slots free', () => {
    const table = new WorkTable();
    table.add('a', 3);
    expect(table.free('a')).to.equal(3);
    expect(table.busy('a')).to.equal(0);
    expect(table.concurrency('a')).to.equal(3);
    expect(table.isActive('a')).to.equal(true);
  });

  it('counts slots taken and given back', () => {
    const table = new WorkTable();
    table.add('a', 3);
    table.take('a');
    table.take('a');
    expect(table.free('a')).to.equal(1);
    expect(table.busy('a')).to.equal(2);
    table.release('a');
    expect(table.free('a')).to.equal(2);
  });

  it('says a release freed the first slot of a full queue, and only then', () => {
    const table = new WorkTable();
    table.add('a', 2);
    table.take('a', 2);
    expect(table.release('a')).to.equal(true);
    expect(table.release('a')).to.equal(false);
  });

  it('has no free slots and no busy count for a queue it does not know', () => {
    const table = new WorkTable();
    expect(table.free('x')).to.equal(0);
    expect(table.busy('x')).to.equal(0);
    expect(table.release('x')).to.equal(false);
    expect(() => table.take('x')).to.throw(/not in the work table/);
  });

  it('gives an unsubscribed queue no free slots but keeps counting its running jobs', () => {
    const table = new WorkTable();
    table.add('a', 2);
    table.take('a');
    table.remove('a');
    expect(table.isActive('a')).to.equal(false);
    expect(table.free('a')).to.equal(0);
    expect(table.busy('a')).to.equal(1);
    table.release('a');
    expect(table.row('a')).to.equal(undefined);
  });

  it('keeps the busy count of a queue subscribed again while its jobs still run, with the new concurrency', () => {
    const table = new WorkTable();
    table.add('a', 2);
    table.take('a');
    table.remove('a');
    table.add('a', 5);
    expect(table.busy('a')).to.equal(1);
    expect(table.free('a')).to.equal(4);
  });

  it('never reports negative free slots when concurrency is lowered below the busy count', () => {
    const table = new WorkTable();
    table.add('a', 3);
    table.take('a', 3);
    table.add('a', 1);
    expect(table.free('a')).to.equal(0);
  });

  it('keeps the row of a queue left while a handler of it still runs on a thread after its job settled', () => {
    const table = new WorkTable();
    const row = table.add('a', 2);
    const cells = new Int32Array(table.buffer);
    table.take('a');
    Atomics.add(cells, row * FIELDS + RUNNING, 1); // a thread claimed the slot
    table.release('a'); // the job timed out: settled, its thread not exited yet
    table.remove('a');
    table.add('b', 1);
    expect(table.row('b'), 'another queue gets another row').to.not.equal(row);
    table.add('a', 2);
    expect(table.row('a')).to.equal(row);
    expect(table.running('a'), 'subscribed again, it still counts the running handler').to.equal(1);
    table.remove('a');
    Atomics.sub(cells, row * FIELDS + RUNNING, 1); // the thread exited (ThreadClaims#threadGone)
    table.add('c', 1);
    expect(table.row('c'), 'the row is reused once that handler ended').to.equal(row);
    expect(table.running('c')).to.equal(0);
  });

  it('sums busy slots over all queues', () => {
    const table = new WorkTable();
    table.add('a', 2);
    table.add('b', 2);
    table.take('a');
    table.take('b', 2);
    expect(table.totalBusy()).to.equal(3);
  });

  it('reuses the row of a queue removed while idle, starting from zero busy', () => {
    const table = new WorkTable();
    table.add('a', 1);
    const row = table.row('a');
    table.remove('a');
    table.add('b', 4);
    expect(table.row('b')).to.equal(row);
    expect(table.busy('b')).to.equal(0);
  });

  it('shows its counts through the shared buffer (concurrency, busy, active per row)', () => {
    const table = new WorkTable();
    const row = table.add('a', 7);
    table.take('a', 2);
    const cells = new Int32Array(table.buffer);
    expect([...cells.slice(row * 3, row * 3 + 3)]).to.deep.equal([7, 2, 1]);
  });

  it('lists the queues subscribed now with their concurrency, not one unsubscribed while its jobs still run', () => {
    const table = new WorkTable();
    table.add('a', 2);
    table.add('b', 3);
    table.take('b');
    table.remove('b');
    table.add('c', 4);
    expect(table.subscribed()).to.deep.equal([
      { name: 'a', concurrency: 2 },
      { name: 'c', concurrency: 4 },
    ]);
  });

  it(`refuses more than ${MAX_QUEUES} queues at once`, () => {
    const table = new WorkTable();
    for (let i = 0; i < MAX_QUEUES; i++) table.add(`q${i}`, 1);
    expect(() => table.add('one-more', 1)).to.throw(/at most/);
  });

  it("keeps the pace the threads record for a queue's jobs, none before one ended, and a fresh row starts without one", () => {
    const table = new WorkTable();
    const row = table.add('a', 2);
    expect(table.pace('a'), 'no job ended yet').to.equal(undefined);
    const cells = new Int32Array(table.buffer);
    recordPace(cells, row, 2000);
    expect(table.pace('a'), 'the first run sets it').to.equal(2);
    for (let i = 0; i < 100; i++) recordPace(cells, row, 100);
    expect(table.pace('a'), 'later runs move it').to.be.within(0.1, 0.2);
    expect(table.pace('other'), 'a queue it does not know').to.equal(undefined);
    table.remove('a');
    table.add('b', 1);
    expect(table.pace('b'), 'the reused row keeps nothing of the queue before').to.equal(undefined);
  });
});
