// A worker thread's run queue and slot claims (workers/run-queue.ts, workers/slot-claims.ts), run
// here on one thread with two queues standing for two threads over one shared table: a queue's
// running count never passes its concurrency, a freed slot goes to the next job waiting on the
// same thread without a release, or back to the table (waking the other thread's jobs), and a job
// handed over before the node was declared dead never starts.
import { expect } from 'chai';
import { claimsViews, CLAIMS_BYTES, LEASE_FOREVER } from '../../workers/claims-layout';
import { LocalJob, RunQueue } from '../../workers/run-queue';
import { SlotClaims } from '../../workers/slot-claims';
import { WorkTable } from '../../src/run/work-table';
import { waitFor } from '../support/node';

describe('a thread run queue', () => {
  let table: WorkTable;
  let claimsBuffer: SharedArrayBuffer;
  const started: string[] = [];
  const withdrawn: string[] = [];

  function thread(threadId: number): RunQueue {
    const claims = new SlotClaims(new Int32Array(table.buffer), claimsViews(claimsBuffer), threadId);
    const queue: RunQueue = new RunQueue(claims, () =>
      queueMicrotask(() => queue.takeStarts().forEach((job) => job.run())),
    );
    return queue;
  }

  let ids = 0;
  const job = (name: string, row: number | undefined, generation?: number): LocalJob => ({
    id: ids++,
    row,
    generation,
    run: () => started.push(name),
    withdraw: () => withdrawn.push(name),
  });

  beforeEach(() => {
    table = new WorkTable();
    claimsBuffer = new SharedArrayBuffer(CLAIMS_BYTES);
    Atomics.store(claimsViews(claimsBuffer).lease, 0, LEASE_FOREVER);
    started.length = 0;
    withdrawn.length = 0;
  });

  it('starts no more than the concurrency, and hands a freed slot to the next job waiting on its thread', async () => {
    const row = table.add('q', 2);
    const one = thread(1);
    for (const name of ['a', 'b', 'c', 'd']) one.admit(job(name, row));
    await waitFor(() => started.length === 2, 2000, 'two jobs started');
    expect(started).to.deep.equal(['a', 'b']);
    expect(table.running('q')).to.equal(2);
    one.ended(row);
    await waitFor(() => started.length === 3, 2000, 'the next job started');
    expect(started[2]).to.equal('c');
    expect(table.running('q'), 'the slot went from a to c').to.equal(2);
    one.ended(row);
    one.ended(row);
    await waitFor(() => started.length === 4, 2000, 'the last job started');
    one.ended(row);
    expect(table.running('q')).to.equal(0);
  });

  it("gives a freed slot back to the table when none waits on its thread, and the other thread's job takes it", async () => {
    const row = table.add('q', 1);
    const one = thread(1);
    const two = thread(2);
    one.admit(job('a', row));
    two.admit(job('b', row));
    await waitFor(() => started.length === 1, 2000, 'one job started');
    expect(started).to.deep.equal(['a']);
    one.ended(row);
    await waitFor(() => started.length === 2, 2000, "the other thread's job started");
    expect(started).to.deep.equal(['a', 'b']);
    expect(table.running('q')).to.equal(1);
  });

  it('withdraws the waiting jobs asked for, and never starts one handed over before the node was declared dead', async () => {
    const row = table.add('q', 1);
    const one = thread(1);
    one.admit(job('a', row, 0));
    const b = job('b', row, 0);
    one.admit(b);
    one.admit(job('c', row, 0));
    await waitFor(() => started.length === 1, 2000, 'one job started');
    expect(one.withdraw((waiting) => waiting.id === b.id)).to.equal(1);
    expect(withdrawn).to.deep.equal(['b']);
    Atomics.add(claimsViews(claimsBuffer).generation, 0, 1);
    one.admit(job('d', row, 0));
    one.ended(row);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).to.deep.equal(['a']);
    expect(withdrawn).to.deep.equal(['b', 'd', 'c']);
    expect(table.running('q')).to.equal(0);
  });
});
