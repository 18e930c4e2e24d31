// A handler's failure, however it happens, becomes a failed job in Redis; the node carries on.
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { NodeTest, useNodes, waitFor } from '../support/node';

async function failure(t: NodeTest): Promise<any> {
  const raw = await waitFor(async () => (await t.redis.zrange(t.keys.retry('default'), 0, -1))[0], 8000, 'a failed job in the retry set');
  return JSON.parse(raw);
}

/** The node still runs jobs: a Record job enqueued now runs. */
async function stillRuns(t: NodeTest, node: Nexq): Promise<void> {
  const out = t.out('alive');
  await node.enqueue('default', 'Record', [t.url, out, 'alive']);
  const [record] = await t.waitForRecords(out, 1, 8000);
  expect(record.value).to.equal('alive');
  expect(node.node.running).to.equal(true);
}

describe('handler failures', () => {
  const t = useNodes();

  it('files a thrown non-Error as NonErrorThrown with what was thrown', async () => {
    const node = await t.start();
    const jid = await node.enqueue('default', 'ThrowString');
    const job = await failure(t);
    expect(job).to.include({ jid, error_class: 'NonErrorThrown' });
    expect(job.error_message).to.contain('not an error object');
  });

  it('files a rejected promise under the rejection\'s error class and message', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Reject');
    expect(await failure(t)).to.include({ error_class: 'TypeError', error_message: 'rejected on purpose' });
  });

  it('files a job whose module has no perform function as HandlerLoadError', async () => {
    const node = await t.start();
    await node.enqueue('default', 'NoPerform');
    const job = await failure(t);
    expect(job.error_class).to.equal('HandlerLoadError');
    expect(job.error_message).to.contain('perform');
  });

  it('files a job that calls process.exit in its thread as failed, and the node keeps running jobs', async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    const jid = await node.enqueue('default', 'Exit');
    const job = await failure(t);
    expect(job).to.include({ jid, error_class: 'WorkerThreadExited' });
    await stillRuns(t, node);
  });

  it('files a job that overflows its stack as RangeError, and the node keeps running jobs', async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    const jid = await node.enqueue('default', 'Overflow');
    const job = await failure(t);
    expect(job).to.include({ jid, error_class: 'RangeError' });
    expect(job.error_message).to.match(/call stack/i);
    await stillRuns(t, node);
  });

  it('files a job that runs its thread out of memory as WorkerOutOfMemory, and the node keeps running jobs', async function () {
    this.timeout(30_000);
    const node = await t.start({ threadMaxHeapMb: 32, queues: [{ name: 'default', concurrency: 1 }] });
    const jid = await node.enqueue('default', 'Hog');
    const job = await failure(t);
    expect(job).to.include({ jid, error_class: 'WorkerOutOfMemory' });
    await stillRuns(t, node);
  });

  it('files a job that outlives jobTimeout as JobTimeoutError, and runs the next job', async () => {
    // Not tighter: the timeout also covers starting the replacement thread and loading the next
    // job's module there (ioredis, for Record), which can take a few hundred ms on a busy machine.
    const node = await t.start({ jobTimeout: 1000, queues: [{ name: 'default', concurrency: 1 }] });
    const jid = await node.enqueue('default', 'Sleep', [5000]);
    const job = await failure(t);
    expect(job).to.include({ jid, error_class: 'JobTimeoutError' });
    expect(job.error_message).to.contain('1000 ms');
    await stillRuns(t, node);
  });

  it('does not count the time a job waits for a free thread against its jobTimeout', async () => {
    // A job with a timeout needs a thread of its own (its thread is terminated on timeout), so with
    // one thread these three run one after another; each runs well within the limit.
    const out = t.out('queued');
    const node = await t.start({ threads: 1, jobTimeout: 1000, queues: [{ name: 'default', concurrency: 3 }] });
    await node.enqueueAll([1, 2, 3].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, n, 500] })));
    await t.waitForRecords(out, 3, 8000);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('counts a job that failed in its thread as a failure in the stats', async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    await node.enqueue('default', 'Exit');
    await failure(t);
    await waitFor(async () => (await t.redis.get(t.keys.stat('failed'))) === '1', 5000, 'the failure to be counted');
  });
});
