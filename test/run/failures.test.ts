// A handler's failure, however it happens, becomes a failed job in Redis; the node carries on.
import { expect } from 'chai';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readBacktrace } from '../../src/job/failure';
import type { Nexq } from '../../src/nexq';
import { captureLogs } from '../support/capture-logs';
import { NodeTest, useNodes, waitFor } from '../support/node';
import { brokenJobs, fixture } from '../support/paths';

async function failure(t: NodeTest): Promise<any> {
  const raw = await waitFor(
    async () => (await t.redis.zrange(t.keys.retry('default'), 0, -1))[0],
    8000,
    'a failed job in the retry set',
  );
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

  it("files a rejected promise under the rejection's error class and message", async () => {
    const node = await t.start();
    await node.enqueue('default', 'Reject');
    expect(await failure(t)).to.include({ error_class: 'TypeError', error_message: 'rejected on purpose' });
  });

  it('files a job whose module has no perform function (any more) as HandlerLoadError', async () => {
    // A node refuses such a module at start; one changed on disk after the start fails its jobs.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'nexq-handler-')), 'Changed.js');
    writeFileSync(file, 'exports.perform = () => {};\n');
    const node = await t.start({ jobs: { NoPerform: file } });
    copyFileSync(path.join(brokenJobs, 'NoPerform.js'), file);
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

  it("counts a timed-out handler against its queue's concurrency until its thread has exited, across leaving and rejoining the queue", async () => {
    // The timeout settles the job at once, while its thread is still being terminated; a handler
    // blocked in native code runs on until it returns. The queue left meanwhile must not come back
    // with its running count reset: the next job starts only once that thread is gone.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-outlast-'));
    const ended = path.join(dir, 'ended');
    const seen = path.join(dir, 'seen');
    const node = await t.start({ jobTimeout: 300, threads: 2, queues: [{ name: 'default', concurrency: 1 }] });
    const jid = await node.enqueue('default', 'Outlast', [ended, 3000]);
    expect(await failure(t)).to.include({ jid, error_class: 'JobTimeoutError' });
    await node.unsubscribe('default');
    await node.subscribe('default', 1);
    await node.enqueue('default', 'LookForFile', [ended, seen]);
    const next = await waitFor(
      () => existsSync(seen) && JSON.parse(readFileSync(seen, 'utf8')),
      15_000,
      'the next job',
    );
    rmSync(dir, { recursive: true, force: true });
    expect(next.seen, 'the next job started after the timed-out handler ended').to.equal(true);
  });

  it('does not count the time a job waits for a free thread against its jobTimeout', async () => {
    // A job with a timeout needs a thread of its own (its thread is terminated on timeout), so with
    // one thread these three run one after another; each runs well within the limit.
    const out = t.out('queued');
    const node = await t.start({ threads: 1, jobTimeout: 1000, queues: [{ name: 'default', concurrency: 3 }] });
    await node.enqueueAll([1, 2, 3].map((n) => ({ queue: 'default', class: 'Record', args: [t.url, out, n, 500] })));
    // Each job starts a thread of its own; on a loaded machine that takes seconds, which is not what is tested.
    await t.waitForRecords(out, 3, 45_000);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  }).timeout(60_000);

  it('counts a job that failed in its thread as a failure in the stats', async () => {
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    await node.enqueue('default', 'Exit');
    await failure(t);
    await waitFor(async () => (await t.redis.get(t.keys.stat('failed'))) === '1', 5000, 'the failure to be counted');
  });
});

describe('where a failure happened', () => {
  const t = useNodes();
  const typo = fixture('Typo.js');

  /** The JSON log lines about `jid`. */
  const linesOf = (text: string, jid: string) =>
    text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.jid === jid);

  it("logs the failure at warn with its fields and the handler's stack, and keeps 20 lines of it in error_backtrace", async () => {
    const logs = captureLogs('json');
    const node = await t.start({ logger: logs.logger });
    const jid = await node.enqueue('default', 'Typo', [{}]);
    const job = await failure(t);
    const warned = await waitFor(
      () => linesOf(logs.text(), jid).find((line) => line.level === 'warn'),
      5000,
      'the warn line',
    );
    expect(warned).to.deep.include({ jid, class: 'Typo', queue: 'default', retryCount: 0, node: 'test-node' });
    expect(warned.durationMs).to.be.a('number');
    expect(warned.error).to.include({
      class: 'TypeError',
      message: "Cannot read properties of undefined (reading 'name')",
    });
    const stack: string[] = warned.error.stack.split('\n');
    expect(stack[0]).to.equal("TypeError: Cannot read properties of undefined (reading 'name')");
    expect(stack[1]).to.match(new RegExp(`^    at .*${typo.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:\\d+\\)?$`));
    expect(warned.message).not.to.include(jid);
    // A debug line about the same job carries the same fields.
    expect(linesOf(logs.text(), jid).find((line) => line.level === 'debug')).to.deep.include({
      jid,
      class: 'Typo',
      queue: 'default',
      retryCount: 0,
    });
    const backtrace = readBacktrace(job.error_backtrace)!;
    expect(backtrace[0]).to.include(`${typo}:3:`);
    expect(backtrace.join('\n')).not.to.match(/node:internal|piscina|dist[\\/]workers/);
    expect((await node.show(jid))!.errorBacktrace).to.deep.equal(backtrace);
  });

  it("keeps as many lines as the job says (Sidekiq's backtrace option), over the node's backtrace option", async () => {
    const node = await t.start({ backtrace: false });
    const short = await node.enqueue('default', 'Typo', [{}], { backtrace: 1 });
    const none = await node.enqueue('default', 'Typo', [{}]);
    const raws = await waitFor(
      async () => {
        const entries = await t.redis.zrange(t.keys.retry('default'), 0, -1);
        return entries.length === 2 && entries.map((raw) => JSON.parse(raw));
      },
      8000,
      'both failed jobs in the retry set',
    );
    const byJid = Object.fromEntries(raws.map((job: any) => [job.jid, job]));
    expect(byJid[short].backtrace).to.equal(1);
    expect(readBacktrace(byJid[short].error_backtrace)).to.have.length(1);
    expect(byJid[none]).not.to.have.property('error_backtrace');
  });

  it('prints a short pretty line, without the node or the jid twice, and the stack under it', async () => {
    const logs = captureLogs('pretty');
    const node = await t.start({ logger: logs.logger });
    const jid = await node.enqueue('default', 'Typo', [{}]);
    await failure(t);
    const lines = await waitFor(
      () => {
        const all = logs.text().split('\n');
        const at = all.findIndex((line) => line.includes(' warn ') && line.includes(jid));
        return at >= 0 && all.slice(at);
      },
      5000,
      'the warn line',
    );
    expect(lines[0]).to.match(
      new RegExp(
        `^\\S+ warn  \\[job:${jid}\\] Typo failed: TypeError: Cannot read properties of undefined \\(reading 'name'\\); retry #1 at \\S+$`,
      ),
    );
    expect(lines[1]).to.match(/^ {4}at .*Typo\.js:3:\d+\)?$/);
    expect(logs.text()).not.to.include('test-node');
  });

  it('says at warn which job the shutdown timeout cut off, and where it is left', async () => {
    const logs = captureLogs('json');
    const node = await t.start({ logger: logs.logger, shutdownTimeout: 100, nodeId: 'cut-node' });
    const jid = await node.enqueue('default', 'Sleep', [60_000]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup('cut-node', 'default'))) === 1,
      5000,
      'the job running',
    );
    await t.stop(node);
    const cut = linesOf(logs.text(), jid).find((line) => line.level === 'warn');
    expect(cut).to.deep.include({ jid, class: 'Sleep', queue: 'default' });
    expect(cut.message).to.equal(
      "Sleep cut off by the stop (shutdownTimeout 100 ms); left in this node's backup list: it runs again when node cut-node starts, or within nodeTimeout (30 s) on another node",
    );
    expect(await t.redis.llen(t.keys.backup('cut-node', 'default'))).to.equal(1);
  });
});
