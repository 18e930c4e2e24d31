// `nexq drain`, run as a real process against real Redis while a real node drains real jobs.
import { expect } from 'chai';
import { CLI, Run, runProcess } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

describe('nexq drain', () => {
  const t = useNodes();

  const run = (file: string, args: string[]): Promise<Run> =>
    runProcess(file, args, { REDIS_URL: t.url, NEXQ_NAMESPACE: t.ns });
  const drain = (args: string[]) => run(process.execPath, [CLI, 'drain', ...args]);

  /** Ids of the clients connected to Redis now. */
  async function clientIds(): Promise<Set<string>> {
    const list = (await t.redis.client('LIST')) as string;
    return new Set(list.split('\n').map((line) => /\bid=(\d+)/.exec(line)?.[1] ?? ''));
  }

  /** Waits until a client not in `before` (the drain command's) has read the queues once. */
  async function drainHasLooked(before: Set<string>): Promise<void> {
    await waitFor(
      async () => {
        const list = (await t.redis.client('LIST')) as string;
        return list
          .split('\n')
          .some((line) => !before.has(/\bid=(\d+)/.exec(line)?.[1] ?? '') && /\bcmd=(exec|llen|hvals)\b/.test(line));
      },
      10_000,
      'the drain command to read the queues',
    );
  }

  async function enqueueSlow(count: number, key: string, sleepMs: number): Promise<void> {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueueAll(
      Array.from({ length: count }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, key, i, sleepMs] })),
    );
  }

  it('waits while a node drains the queue, then prints a JSON summary and exits 0', async () => {
    await enqueueSlow(30, t.out('done'), 20);
    const before = await clientIds();
    const watching = drain(['--json']);
    await drainHasLooked(before);
    await t.start({ queues: [{ name: 'default', concurrency: 3 }] });
    const result = await watching;
    expect(result.stderr).to.equal('');
    expect(result.status).to.equal(0);
    // Every job ran before drain said so.
    expect(await t.redis.llen(t.out('done'))).to.equal(30);
    const summary = JSON.parse(result.stdout);
    expect(summary).to.include({ drained: true, initial: 30, remaining: 0, running: 0 });
    expect(summary.queues).to.deep.equal(['default']);
    expect(summary.queued).to.deep.equal({ default: 0 });
    expect(summary.processed).to.be.a('number');
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
    await enqueueSlow(20, t.out('tty'), 20);
    // `script` gives the command a pseudo-terminal (util-linux, in every Debian).
    const command = [process.execPath, CLI, 'drain', 'default'].map((a) => `'${a}'`).join(' ');
    const before = await clientIds();
    const watching = run('script', ['-qec', command, '/dev/null']);
    await drainHasLooked(before);
    await t.start({ queues: [{ name: 'default', concurrency: 2 }] });
    const result = await watching;
    expect(result.status).to.equal(0);
    expect(await t.redis.llen(t.out('tty'))).to.equal(20);
    expect(result.stdout).to.match(/\rdraining default \[[#.]{30}\] \d+\/20 left {2}[\d.]+ jobs\/s {2}\d+s/);
    expect(result.stdout).to.include('\x1b[K'); // each redraw clears the rest of the line
    expect(result.stdout).to.match(/\[#{30}\] 0\/20 left/);
    expect(result.stdout).to.match(/drained default: \d+ job\(s\) processed/);
  });

  it('times out with one line and exit 1, counting waiting and running jobs (a Sidekiq process entry too)', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    for (const n of [1, 2, 3]) await producer.enqueue('nobody-serves', 'Record', [n]);
    // A process that reports a running job of another queue, as Sidekiq's heartbeat writes it.
    const identity = 'other-host:123:abc';
    await t.redis
      .multi()
      .sadd(t.keys.processes, identity)
      .hset(t.keys.processWorkers(identity), 'tid-1', JSON.stringify({ queue: 'mail', payload: '{}', run_at: 1 }))
      .sadd(t.keys.queues, 'mail')
      .exec();
    const waiting = await drain(['nobody-serves', '--timeout', '0.5', '--json']);
    expect(waiting.status).to.equal(1);
    expect(waiting.stderr.trim().split('\n')).to.deep.equal([
      'nexq: drain timed out after 0.5 s: 3 job(s) left (3 waiting, 0 running)',
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
