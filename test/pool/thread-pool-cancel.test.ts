// Cancelling a batched job terminates its thread; until that thread has exited, piscina may still
// hand it the next batch. Jobs lost that way never started: they are withdrawn (back to their
// queue), not failed.
import path from 'node:path';
import { expect } from 'chai';
import { CancelHandle, ThreadPool } from '../../src/pool/thread-pool';
import { WorkTable } from '../../src/run/work-table';
import { fixturesJobs } from '../support/paths';
import { waitFor } from '../support/node';

describe('a thread pool cancelling a job', () => {
  let pool: ThreadPool;

  beforeEach(() => {
    pool = new ThreadPool({
      threads: 1,
      maxHeapMb: 0,
      mainYoungGenerationMb: 0,
      threadYoungGenerationMb: 0,
      data: { workTable: new WorkTable().buffer },
    });
  });

  afterEach(() => pool.destroy());

  const task = (className: string, args: unknown[]) => ({
    raw: JSON.stringify({ class: className, jid: className, args }),
    file: path.join(fixturesJobs, `${className}.js`),
  });

  it('withdraws a batch handed over after the cancel, before the cancelled thread exited', async () => {
    const handle: CancelHandle = {};
    const spin = pool.run(task('Spin', []), 0, handle);
    // The thread said it started the batch: the cancel terminates it rather than waiting for that.
    const threadOf = (pool as unknown as { threadOf: Map<number, number> }).threadOf;
    await waitFor(() => threadOf.size === 1, 5000, 'the spinning job started on its thread');
    handle.cancel!();
    // Flushed on this tick's nextTick, while the terminated thread is still piscina's only one.
    const next = pool.run(task('Sleep', [1]), 0);
    expect(await spin).to.include({ ok: false, stopped: 'cancelled' });
    expect(await next).to.include({ ok: false, stopped: 'withdrawn' });
    // The pool goes on with a fresh thread.
    expect(await pool.run(task('Sleep', [1]), 0)).to.deep.equal({ ok: true });
  });
});
