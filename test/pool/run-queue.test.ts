// A worker thread's run queue and slot claims (workers/run-queue.ts), run
// here on one thread with two queues standing for two threads over one shared table: a queue's
// running count never passes its concurrency, a freed slot goes to the next job waiting on the
// same thread without a release, or back to the table (waking the other thread's jobs), and a job
// handed over before the node was declared dead never starts. A chunk (performMany) takes one
// slot per job, all at once or none, and one above its queue's concurrency is withdrawn.
import { expect } from 'chai';
import { claimsViews, CLAIMS_BYTES, LEASE_FOREVER } from '../../workers/claims-layout';
import { LocalJob, RunQueue, SlotClaims } from '../../workers/run-queue';
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
  /** A chunk of `size` jobs, as workers/thread-entry.ts admits one. */
  const chunk = (name: string, row: number, size: number): LocalJob => {
    const first = ids;
    ids += size;
    return { ...job(name, row), id: first, ids: Array.from({ length: size }, (_, i) => first + i) };
  };

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

  it('starts a chunk only once it can claim a slot per job at once, holding none while it waits', async () => {
    const row = table.add('q', 3);
    const one = thread(1);
    const two = thread(2);
    one.admit(job('a', row));
    one.admit(job('b', row));
    two.admit(chunk('C', row, 2));
    await waitFor(() => started.length === 2, 2000, 'the single jobs started');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started, 'one slot free, the chunk of two waits').to.deep.equal(['a', 'b']);
    expect(table.running('q'), 'the waiting chunk holds no slot').to.equal(2);
    one.ended(row);
    await waitFor(() => started.length === 3, 2000, 'the chunk started');
    expect(started[2]).to.equal('C');
    expect(table.running('q')).to.equal(3);
    two.ended(row, 2);
    one.ended(row);
    expect(table.running('q')).to.equal(0);
  });

  it('hands the slots of an ended chunk to the next chunk of the same size waiting on its thread', async () => {
    const row = table.add('q', 2);
    const one = thread(1);
    one.admit(chunk('C1', row, 2));
    one.admit(chunk('C2', row, 2));
    await waitFor(() => started.length === 1, 2000, 'the first chunk started');
    one.ended(row, 2);
    await waitFor(() => started.length === 2, 2000, 'the second chunk started');
    expect(started).to.deep.equal(['C1', 'C2']);
    expect(table.running('q')).to.equal(2);
    one.ended(row, 2);
    expect(table.running('q')).to.equal(0);
  });

  it('withdraws a chunk above its queue concurrency, on admission or once the concurrency is lowered', async () => {
    const row = table.add('q', 2);
    const one = thread(1);
    one.admit(chunk('big', row, 3));
    expect(withdrawn).to.deep.equal(['big']);
    one.admit(job('a', row));
    one.admit(job('b', row));
    one.admit(chunk('C', row, 2));
    await waitFor(() => started.length === 2, 2000, 'the single jobs started');
    table.add('q', 1);
    one.ended(row);
    one.ended(row);
    await waitFor(() => withdrawn.length === 2, 2000, 'the chunk withdrawn');
    expect(withdrawn).to.deep.equal(['big', 'C']);
    expect(started).to.deep.equal(['a', 'b']);
    expect(table.running('q')).to.equal(0);
  });

  it("hands an ended chunk's slots only to a waiting job that may start and takes as many, never to the one behind", async () => {
    const row = table.add('q', 10);
    const one = thread(1);
    one.admit(chunk('A', row, 8));
    one.admit(chunk('B', row, 8));
    one.admit(chunk('C', row, 2));
    await waitFor(() => started.length === 1, 2000, 'the first chunk started');
    table.add('q', 5); // B is now above the concurrency: withdrawn when A ends, and C takes 2, not A's 8
    one.ended(row, 8);
    await waitFor(() => started.length === 2, 2000, 'C started');
    expect(withdrawn).to.deep.equal(['B']);
    expect(table.running('q'), 'C holds its own 2 slots').to.equal(2);
    one.ended(row, 2);
    expect(table.running('q')).to.equal(0);
  });

  it('starts the head it claimed slots for, even when the concurrency drops right after the claim', async () => {
    const row = table.add('q', 10);
    const cells = new Int32Array(table.buffer);
    const claims = new (class extends SlotClaims {
      lowerAfterClaim = false;
      override tryClaim(claimRow: number, count = 1): boolean {
        const ok = super.tryClaim(claimRow, count);
        if (ok && this.lowerAfterClaim) table.add('q', 5);
        return ok;
      }
    })(cells, claimsViews(claimsBuffer), 1);
    const one: RunQueue = new RunQueue(claims, () => queueMicrotask(() => one.takeStarts().forEach((j) => j.run())));
    const other = thread(2);
    for (let i = 0; i < 10; i++) other.admit(job(`o${i}`, row));
    await waitFor(() => started.length === 10, 2000, 'the other thread holds every slot');
    one.admit(chunk('H', row, 8));
    one.admit(chunk('J', row, 2));
    claims.lowerAfterClaim = true;
    for (let i = 0; i < 10; i++) other.ended(row);
    await waitFor(() => started.includes('H'), 2000, 'H started');
    expect(withdrawn, 'H claimed its slots before the drop: it runs, and is not also withdrawn').to.not.include('H');
    one.ended(row, 8);
    await waitFor(() => started.includes('J'), 2000, 'J started after H');
    one.ended(row, 2);
    expect(table.running('q')).to.equal(0);
  });
});
