// `nexq drain`, run as a real process against real Redis while a real node drains real jobs.
import { expect } from 'chai';
import { CLI, Run, runProcess } from '../support/cli';
import { useNodes, waitFor } from '../support/node';
import { Stats } from '../../src/actors/stats';

describe('nexq drain', () => {
  const t = useNodes();

  const run = (file: string, args: string[]): Promise<Run> =>
    runProcess(file, args, { REDIS_URL: t.url, NEXQ_NAMESPACE: t.ns });
  const drain = (args: string[]) => run(process.execPath, [CLI, 'drain', ...args]);

  async function enqueueSlow(count: number, key: string, sleepMs: number): Promise<void> {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueAll(
      Array.from({ length: count }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, key, i, sleepMs] })),
    );
  }

  it('waits while a node drains the queue, then prints a JSON summary and exits 0', async () => {
    await t.start({ queues: [{ name: 'default', concurrency: 3 }] });
    await enqueueSlow(30, t.out('done'), 500);
    const result = await drain(['--json']);
    expect(result.stderr).to.equal('');
    expect(result.status).to.equal(0);
    // Every job ran before drain said so.
    expect(await t.redis.llen(t.out('done'))).to.equal(30);
    const summary = JSON.parse(result.stdout);
    expect(summary).to.include({ drained: true, remaining: 0, running: 0 });
    expect(summary.initial).to.be.within(1, 30);
    expect(summary.queues).to.deep.equal(['default']);
    expect(summary.queued).to.deep.equal({ default: 0 });
    expect(summary.processed).to.be.a('number');
  });

  /**
   * Waits until a `nexq drain` started after `known` (client ids) has read the queues once: it sends
   * each queue's MULTI (lengths, backup lists, count) before the process entries' and pauses' reads,
   * on one connection, so once one of those ran the queues were read.
   */
  async function drainReading(known: Set<string>): Promise<void> {
    await waitFor(
      async () =>
        ((await t.redis.client('LIST')) as string)
          .split('\n')
          .some((line) => !known.has(/\bid=(\d+)/.exec(line)?.[1] ?? '') && / cmd=(hget|hmget|hvals)\b/.test(line)),
      10_000,
      'drain reading the queues',
    );
  }

  const clientIds = async () =>
    new Set([...((await t.redis.client('LIST')) as string).matchAll(/\bid=(\d+)/g)].map((m) => m[1]));

  it('counts exactly the jobs of the drained queue that finish meanwhile, while another queue runs too', async () => {
    const node = await t.start({
      queues: [
        { name: 'default', concurrency: 2 },
        { name: 'other', concurrency: 2 },
      ],
    });
    for (let round = 1; round <= 3; round++) {
      // Jobs of another queue run before, during and after the drain: they are not counted.
      await node.enqueueAll(
        Array.from({ length: 12 }, (_, i) => ({
          queue: 'other',
          class: 'Record',
          args: [t.url, t.out('other'), i, 200],
        })),
      );
      await t.waitForRecords(t.out('other'), (round - 1) * 12 + 1);
      // Five jobs that end only once the drain has started (two running, three waiting meanwhile).
      const gate = t.out(`gate${round}`);
      await node.enqueueAll(
        Array.from({ length: 5 }, () => ({ queue: 'default', class: 'Gate', args: [t.url, gate] })),
      );
      const known = await clientIds();
      const running = drain(['default', '--json']);
      await drainReading(known);
      await t.redis.rpush(gate, 1, 2, 3, 4, 5);
      const result = await running;
      expect(result.stderr).to.equal('');
      expect(JSON.parse(result.stdout)).to.include({ drained: true, processed: 5 });
      await t.waitForRecords(t.out('other'), 12 * round);
    }
    // Every job of both queues is in the per-queue counts.
    await waitFor(async () => (await t.redis.get(t.keys.processed('other'))) === '36', 5000, 'the other queue counted');
    expect(await t.redis.get(t.keys.processed('default'))).to.equal('15');
  });

  it('does not count a job that ended before the drain began, though its stats land after', async () => {
    // The stats actor's flushes are held back: the ended job's count lands only once the drain has
    // read the queue, as it does when the node's once-a-second flush falls just after that read.
    const { flush } = Stats.prototype as { flush: (this: Stats) => Promise<void> };
    let held = true;
    Stats.prototype.flush = function (this: Stats) {
      return held ? Promise.resolve() : flush.call(this);
    };
    try {
      const node = await t.start({ queues: [{ name: 'default', concurrency: 2 }] });
      await node.enqueue('default', 'Record', [t.url, t.out('before'), 'ended']);
      await t.waitForRecords(t.out('before'), 1);
      await waitFor(async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0);
      const gate = t.out('gate');
      await node.enqueueAll(
        Array.from({ length: 4 }, () => ({ queue: 'default', class: 'Gate', args: [t.url, gate] })),
      );
      const known = await clientIds();
      const running = drain(['default', '--json']);
      await drainReading(known);
      held = false;
      await waitFor(async () => (await t.redis.get(t.keys.stat('processed'))) === '1', 5000, 'the late flush');
      await t.redis.rpush(gate, 1, 2, 3, 4);
      const result = await running;
      expect(result.stderr).to.equal('');
      expect(JSON.parse(result.stdout)).to.include({ drained: true, initial: 4, processed: 4 });
    } finally {
      Stats.prototype.flush = flush;
    }
  });

  it("returns when the jobs are done, not at the node's next beat", async () => {
    const node = await t.start({ heartbeatInterval: 30, nodeTimeout: 90 });
    await waitFor(async () => (await t.redis.scard(t.keys.processes)) === 1, 10_000, 'the process entry');
    const [identity] = await t.redis.smembers(t.keys.processes);
    const jid = await node.enqueue('default', 'Record', [t.url, t.out('beat'), 'one', 1000]);
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0, 10_000, 'the job fetched');
    // What the node's beat reports while the job runs; it stays until the next beat, 30 s on.
    const report = JSON.stringify({ queue: 'default', payload: JSON.stringify({ jid }), run_at: 1 });
    await t.redis.hset(t.keys.processWorkers(identity), 'tid-1', report);
    const result = await drain(['default', '--timeout', '15']);
    expect(result.stderr).to.equal('');
    expect(result.status).to.equal(0);
    expect(await t.redis.llen(t.out('beat'))).to.equal(1);
  });

  it('waits for an at-most-once job, which runs off its backup list', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Record', [t.url, t.out('once'), 'once', 1500], { atMostOnce: true });
    await waitFor(
      async () => (await t.redis.hvals(t.keys.jobIndex('default'))).some((entry) => entry.includes('\ttaken\t')),
      10_000,
      'the job taken',
    );
    const result = await drain(['default']);
    expect(result.status).to.equal(0);
    expect(await t.redis.llen(t.out('once'))).to.equal(1);
  });

  it('fails at once, naming the queue, when no live process serves a queue with jobs or it is paused', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const n of [1, 2]) await producer.enqueue('nobody-serves', 'Record', [n]);
    const result = await drain(['nobody-serves']);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.equal('nexq: cannot drain queue nobody-serves: no live process serves it\n');
    const json = await drain(['nobody-serves', '--json']);
    expect(JSON.parse(json.stderr).error).to.deep.equal({
      code: 'QUEUE_UNSERVED',
      message: 'cannot drain queue nobody-serves: no live process serves it',
    });
    await t.start({ queues: ['nobody-serves'] });
    await producer.pause('nobody-serves', 'out');
    const paused = await drain(['nobody-serves']);
    expect(paused.status).to.equal(1);
    expect(paused.stderr).to.equal(
      'nexq: cannot drain queue nobody-serves: it is paused (out; nexq resume nobody-serves)\n',
    );
    const unknown = await drain(['no-such-queue']);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.match(/^nexq: unknown queue "no-such-queue" /);
  });

  it('waits for the jobs still running, not only for empty queues', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Record', [t.url, t.out('slow'), 'last', 1500]);
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0, 10_000, 'the job fetched');
    const result = await drain(['default']);
    expect(result.status).to.equal(0);
    expect(await t.redis.llen(t.out('slow'))).to.equal(1);
    expect(result.stdout).to.match(/^drained default: \d+ job\(s\) processed in [\d.]+ s \([\d.]+ jobs\/s\)\n$/);
    expect(result.stdout).not.to.include('\r');
  });

  it('draws a live progress bar on a terminal', async () => {
    await enqueueSlow(20, t.out('tty'), 200);
    // `script` gives the command a pseudo-terminal (util-linux, in every Debian).
    const command = [process.execPath, CLI, 'drain', 'default'].map((a) => `'${a}'`).join(' ');
    await t.start({ queues: [{ name: 'default', concurrency: 2 }] });
    const result = await run('script', ['-qec', command, '/dev/null']);
    expect(result.status).to.equal(0);
    expect(await t.redis.llen(t.out('tty'))).to.equal(20);
    expect(result.stdout).to.match(/\rdraining default \[[#.]{30}\] \d+\/\d+ left {2}[\d.]+ jobs\/s {2}\d+s/);
    expect(result.stdout).to.include('\x1b[K'); // each redraw clears the rest of the line
    expect(result.stdout).to.match(/\[#{30}\] 0\/\d+ left/);
    expect(result.stdout).to.match(/drained default: \d+ job\(s\) processed/);
  });

  it('times out with one line and exit 1, counting waiting and running jobs (a Sidekiq process entry too)', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const n of [1, 2, 3]) await producer.enqueue('nobody-serves', 'Record', [n]);
    // A Sidekiq process that serves the queue but takes nothing, and reports a running job of another.
    const identity = 'other-host:123:abc';
    await t.redis
      .multi()
      .sadd(t.keys.processes, identity)
      .hset(t.keys.process(identity), 'info', JSON.stringify({ queues: ['nobody-serves', 'mail'] }), 'quiet', 'false')
      .hset(t.keys.processWorkers(identity), 'tid-1', JSON.stringify({ queue: 'mail', payload: '{}', run_at: 1 }))
      .sadd(t.keys.queues, 'mail')
      .exec();
    const waiting = await drain(['nobody-serves', '--timeout', '0.5', '--json']);
    expect(waiting.status).to.equal(1);
    expect(
      waiting.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).to.deep.equal([
      {
        error: { code: 'DRAIN_TIMEOUT', message: 'drain timed out after 0.5 s: 3 job(s) left (3 waiting, 0 running)' },
      },
    ]);
    expect(JSON.parse(waiting.stdout)).to.include({ drained: false, initial: 3, remaining: 3 });

    const running = await drain(['mail', '--timeout', '0']);
    expect(running.status).to.equal(1);
    expect(running.stderr).to.equal('nexq: drain timed out after 0 s: 1 job(s) left (0 waiting, 1 running)\n');
    expect(running.stdout).to.equal('');
    await t.redis.del(t.keys.processWorkers(identity));
    expect((await drain(['mail', '--timeout', '5'])).status).to.equal(0);
  });

  it('refuses bad input with one line and exit 2, and has --help', async () => {
    const bad = await drain(['--timeout', 'soon']);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.equal('nexq: --timeout must be a number of seconds, got "soon"\n');
    const name = await drain(['a:b']);
    expect(name.status).to.equal(2);
    expect(name.stderr).to.equal('nexq: not a queue name: "a:b"\n');
    const help = await drain(['--help']);
    expect(help.status).to.equal(0);
    expect(help.stdout).to.match(/^Usage: nexq drain \[queue\.\.\.\] \[options\]/);
    expect(help.stdout).to.include('--timeout SECONDS');
    const listed = await run(process.execPath, [CLI, '--help']);
    expect(listed.stdout).to.match(/ {2}drain {6}wait until queues are empty/);
  });
});
