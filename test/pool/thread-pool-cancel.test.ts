// Cancelling a running batched job terminates its thread; a job handed over after the cancel, while
// that thread is still exiting, goes to a live thread (the pool's replacement), never to that one.
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

  it('runs a job handed over after the cancel, before the cancelled thread exited, on a live thread', async () => {
    let started = false;
    const handle: CancelHandle = { started: () => (started = true) };
    const spin = pool.run(task('Spin', []), 0, handle);
    // The thread said it started the job: the cancel terminates it rather than waiting for that.
    await waitFor(() => started, 5000, 'the spinning job started on its thread');
    handle.cancel!();
    // Flushed on this tick's nextTick, while the terminated thread is still piscina's only one.
    const next = pool.run(task('Sleep', [1]), 0);
    expect(await spin).to.include({ ok: false, stopped: 'cancelled' });
    expect(await next).to.deep.equal({ ok: true });
    // The pool goes on with a fresh thread.
    expect(await pool.run(task('Sleep', [1]), 0)).to.deep.equal({ ok: true });
  });
});
