// The admin commands, each run as a real `nexq` process against the test Redis in a fresh namespace.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliAgainst, Run } from '../support/cli';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';

describe('nexq admin commands', () => {
  const t = useNodes();

  const { cli, ok, json } = cliAgainst(() => t);

  function expectUsage(result: Run, pattern: RegExp, status = 2) {
    expect(result.status).to.equal(status);
    const lines = result.stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(pattern);
    expect(result.stdout).to.equal('');
  }

  async function failedJob(options: Record<string, unknown>, set: 'retry' | 'dead'): Promise<string> {
    const node = await t.start();
    const jid = await node.enqueueResult('default', 'Fail', ['it broke'], options as never).then((r) => r.jid);
    await waitFor(
      async () => (await t.redis.zcard(set === 'retry' ? t.keys.retry('default') : t.keys.dead('default'))) === 1,
      10_000,
      `the job in ${set}`,
    );
    await t.stop(node);
    return jid;
  }

  it('enqueue prints the jid and jobs lists the job (table and --json)', async () => {
    const jid = (await ok(['enqueue', 'default', 'Greet', '[1, "two", {"three": 3}]'])).trim();
    expect(jid).to.match(/^[0-9a-f-]{36}$/);
    const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    expect(JSON.parse(raw)).to.include({ jid, class: 'Greet', queue: 'default' });
    const table = await ok(['jobs', 'default']);
    expect(table.split('\n')[0]).to.match(/^JID\s+CLASS\s+ENQUEUED AT\s+ARGS$/);
    expect(table).to.include(jid).and.to.include('Greet');
    const listed = await json(['jobs', 'default', '--limit', '5']);
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ jid, class: 'Greet', queue: 'default' });
    expect(listed[0].args).to.deep.equal([1, 'two', { three: 3 }]);
  });

  it('enqueue --in and --at go to the schedule set, which scheduled lists with ISO times', async () => {
    const later = (await ok(['enqueue', 'mail', 'Later', '--in', '3600'])).trim();
    const at = (await ok(['enqueue', 'mail', 'At', '[]', '--at', '2099-01-02T03:04:05Z'])).trim();
    expect(await t.redis.zcard(t.keys.schedule('mail'))).to.equal(2);
    const listed = await json(['scheduled']);
    expect(listed.map((j: { jid: string }) => j.jid)).to.deep.equal([later, at]);
    expect(listed[1]).to.include({ class: 'At', queue: 'mail', at: '2099-01-02T03:04:05.000Z' });
    expect(await ok(['scheduled'])).to.include('2099-01-02T03:04:05.000Z');
  });

  it('refuses bad input with one line on stderr and exit code 2', async () => {
    expectUsage(await cli(['enqueue', 'default', 'Foo', '[1,']), /^nexq: json-args must be a JSON array: /);
    expectUsage(
      await cli(['enqueue', 'default', 'Foo', '{"a":1}']),
      /^nexq: json-args must be a JSON array, got object$/,
    );
    expectUsage(await cli(['enqueue', 'default']), /^nexq: enqueue takes <queue> <class> <json-args>, got 1 argument/);
    expectUsage(await cli(['enqueue', 'default', 'Foo', '--in', 'soon']), /^nexq: --in must be a number of seconds/);
    expectUsage(await cli(['enqueue', 'default', 'Foo', '--at', 'tomorrow']), /^nexq: --at must be an ISO 8601 time/);
    expectUsage(
      await cli(['enqueue', 'default', 'Foo', '--in', '5', '--at', '2099-01-01T00:00:00Z']),
      /^nexq: give --in or --at, not both$/,
    );
    expectUsage(await cli(['jobs', 'default', '--limit', 'many']), /^nexq: --limit must be a whole number/);
    // Past 2^53: Redis would answer its own error for the number JavaScript sends ("1e+20").
    expectUsage(
      await cli(['jobs', 'default', '--limit', '99999999999999999999']),
      /^nexq: --limit must be a whole number/,
    );
    // Due past any date: refused before anything is written (it used to be written, then the command failed).
    expectUsage(
      await cli(['enqueue', 'default', 'Foo', '[]', '--in', '9000000000000']),
      /^nexq: --in 9000000000000 is past the latest time a date can hold/,
    );
    expectUsage(
      await cli(['enqueue', 'default', 'Foo', `[${'['.repeat(5000)}${']'.repeat(5000)}]`]),
      /^nexq: json-args is nested too deeply$/,
    );
    expectUsage(await cli(['stats', '--bogus', '1']), /^nexq: unknown option --bogus/);
    expectUsage(await cli(['pause', 'default', '--mode', 'sideways']), /^nexq: --mode must be in, out or all/);
    expectUsage(await cli(['retry', 'abc', '--all']), /^nexq: give a jid or --all, not both$/);
    expectUsage(await cli(['enqueue', 'bad queue', 'Foo']), /^nexq: queue name "bad queue" is not valid/);
    // JSON.parse would round it to 9007199254740992 without a word.
    expectUsage(
      await cli(['enqueue', 'default', 'Foo', '[1, {"id": 9007199254740993, "note": "123456789012345678"}]']),
      /^nexq: json-args: args\[1\]\.id is 9007199254740993, a whole number past 2\^53 .*: pass it as a string, "9007199254740993"$/,
    );
    expectUsage(
      await cli(['schedules', 'set', 'x', '* * * * *', 'default', 'Foo', '--args', '[-12345678901234567890]']),
      /^nexq: --args: args\[0\] is -12345678901234567890, .*pass it as a string/,
    );
    expect(await t.redis.exists(t.keys.queue('default'))).to.equal(0);
  }).timeout(90_000); // fourteen CLI processes one after another: a loaded machine takes seconds for each

  it('an unreachable Redis is one line naming the address and why, exit 1, without the password', async () => {
    const result = await cli(['stats'], { REDIS_URL: 'redis://:s3cret-pw@127.0.0.1:1/3' });
    expectUsage(
      result,
      /^nexq: cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1\/3 \(from REDIS_URL\) within 2 s \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/,
      1,
    );
    expect(result.stderr).not.to.include('s3cret-pw');
  });

  it('warns in one line about a misspelt NEXQ_ variable, and still runs', async () => {
    const result = await cli(['stats'], { NEXQ_NAMESPCE: 'other' });
    expect(result.status).to.equal(0);
    expect(result.stderr.trim().split('\n')).to.deep.equal([
      'nexq: NEXQ_NAMESPCE is not a nexq setting and is ignored; did you mean NEXQ_NAMESPACE?',
    ]);
  });

  it('every command answers --help with its usage and exit code 0', async function () {
    this.timeout(120_000);
    const commands = [
      'enqueue',
      'stats',
      'queues',
      'jobs',
      'scheduled',
      'retries',
      'dead',
      'retry',
      'kill',
      'delete',
      'clear',
      'show',
      'pause',
      'resume',
      'processes',
      'quiet',
      'stop',
      'drain',
      'start',
      'batches',
    ];
    // Three at a time: each is a Node process start.
    const results = new Map<string, Run>();
    for (let i = 0; i < commands.length; i += 3)
      for (const [j, result] of (
        await Promise.all(commands.slice(i, i + 3).map((command) => cli([command, '--help'])))
      ).entries())
        results.set(commands[i + j], result);
    for (const command of commands) {
      const result = results.get(command) as Run;
      expect(result.status, command).to.equal(0);
      expect(result.stdout).to.include(`Usage: nexq ${command}`);
      if (command !== 'start') expect(result.stdout).to.include('--json');
      for (const line of result.stdout.split('\n')) {
        expect(line.length, `nexq ${command} --help: ${line}`).to.be.at.most(100);
        // Every option's description starts in column 31.
        if (/^ {2}--/.test(line)) expect(line, `nexq ${command} --help`).to.match(/^ {2}--.{26}\S/);
      }
    }
    const show = (await cli(['show', '--help'])).stdout;
    expect(show).not.to.include('no index by jid');
    expect(show).to.include('job index');
    const start = (await cli(['start', '--help'])).stdout;
    expect(start).to.include('(default: hostname-pid-random');
    expect(start).not.to.include('hash tag');
    const listed = (await cli(['--help'])).stdout;
    for (const command of ['processes', 'kill', 'clear', 'quiet', 'stop']) expect(listed).to.include(`  ${command} `);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    expect(await ok(['--version'])).to.equal(`nexq ${version}\n`);
  });

  it('with --json an error is one JSON line on stderr with its NexqError code', async () => {
    const usage = await cli(['jobs', 'default', '--limit', 'many', '--json']);
    expect(usage.status).to.equal(2);
    expect(JSON.parse(usage.stderr)).to.deep.equal({
      error: { code: 'CLI_USAGE', message: '--limit must be a whole number, got "many"' },
    });
    const missing = await cli(['show', 'no-such-jid', '--json']);
    expect(missing.status).to.equal(1);
    expect(JSON.parse(missing.stderr).error).to.include({ code: 'JOB_NOT_FOUND' });
    const unknown = await cli(['jobs', 'nosuchqueue', '--json']);
    expect(unknown.status).to.equal(1);
    expect(JSON.parse(unknown.stderr).error.code).to.equal('QUEUE_UNKNOWN');
    const down = await cli(['stats', '--json'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(down.status).to.equal(1);
    expect(JSON.parse(down.stderr).error.code).to.equal('REDIS_UNREACHABLE');
    expect(down.stdout).to.equal('');
  });

  it('a failed job: retries lists it with its error, retry <jid> moves it back to its queue', async () => {
    const jid = await failedJob({}, 'retry');
    const [entry] = await json(['retries']);
    expect(entry).to.include({
      jid,
      class: 'Fail',
      queue: 'default',
      error_class: 'BoomError',
      error_message: 'it broke',
    });
    expect(entry.at).to.match(/^\d{4}-\d\d-\d\dT/);
    expect(await ok(['retries'])).to.include('BoomError: it broke');
    expect((await ok(['retry', jid])).trim()).to.equal(`${jid} moved to queue default`);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    const job = JSON.parse(raw);
    expect(job).to.include({ jid, error_class: 'BoomError' });
    expect(job.enqueued_at).to.be.a('number');
    const again = await cli(['retry', jid]);
    expectUsage(again, new RegExp(`^nexq: no job ${jid} in the retry or dead set$`), 1);
  });

  it('a dead job: dead lists it, show finds it there, retry takes it from the dead set', async () => {
    const jid = await failedJob({ retry: 0 }, 'dead');
    expect((await json(['dead']))[0]).to.include({ jid, error_class: 'BoomError' });
    const shown = await ok(['show', jid]);
    expect(shown.split('\n')[0]).to.match(new RegExp(`^${jid}: dead \\(at \\d{4}-`));
    expect(shown).to.include('BoomError: it broke');
    const found = await json(['show', jid]);
    expect(found).to.include({ jid, state: 'dead', deliveries: 1, nacks: 0 });
    expect(found.score).to.be.a('number');
    expect(found.job).to.include({ jid, class: 'Fail' });
    // One shape: what the API's show() returns.
    const producer = await t.start({ mode: 'enqueuer' });
    expect(found).to.deep.equal(JSON.parse(JSON.stringify(await producer.show(jid))));
    expect(await json(['retry', jid])).to.deep.equal({ count: 1, jobs: [{ jid, from: 'dead', to: 'default' }] });
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
  });

  it('show prints the stack of the last failure, and --json gives its lines', async () => {
    const jid = await failedJob({ retry: 0, backtrace: true }, 'dead');
    const shown = await ok(['show', jid]);
    expect(shown).to.match(/\nbacktrace:\n {2}at .*Fail\.js:\d+:\d+\)?\n/);
    const found = await json(['show', jid]);
    expect(found.errorBacktrace[0]).to.match(/Fail\.js:\d+/);
  });

  it('retry --all moves every job of the retry set', async () => {
    const now = Date.now() / 1000;
    for (const [i, queue] of ['a', 'b', 'a'].entries()) {
      await t.redis.zadd(
        t.keys.retry('default'),
        now + 1000,
        JSON.stringify({
          class: 'X',
          args: [i],
          jid: `j${i}`,
          queue,
          retry_count: 1,
          error_class: 'E',
          error_message: 'm',
        }),
      );
    }
    expect((await json(['retry', '--all'])).count).to.equal(3);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('a'))).to.equal(2);
    expect(await t.redis.llen(t.keys.queue('b'))).to.equal(1);
    expect((await t.redis.smembers(t.keys.queues)).sort()).to.deep.equal(['a', 'b']);
  });

  it('delete removes a scheduled job; an unknown jid fails with one line', async () => {
    const jid = (await ok(['enqueue', 'default', 'Later', '--in', '600'])).trim();
    const keep = (await ok(['enqueue', 'default', 'Keep', '--in', '600'])).trim();
    expect(await json(['delete', jid])).to.deep.equal({ count: 1, jobs: [{ jid, from: 'schedule', to: null }] });
    const left = await t.redis.zrange(t.keys.schedule('default'), 0, -1);
    expect(left).to.have.length(1);
    expect(JSON.parse(left[0]).jid).to.equal(keep);
    expectUsage(await cli(['delete', jid]), /^nexq: no job .* in the schedule, retry or dead set$/, 1);
  });

  it('show finds a queued job and says so', async () => {
    const jid = (await ok(['enqueue', 'mail', 'Send', '["to@example.com"]'])).trim();
    const shown = await ok(['show', jid]);
    expect(shown.split('\n')[0]).to.equal(`${jid}: queue mail`);
    expect(shown).to.include('["to@example.com"]');
    const found = await json(['show', jid]);
    expect(found).to.include({ jid, state: 'queued', queue: 'mail', deliveries: 0 });
    expect(found).not.to.have.property('node');
    expectUsage(await cli(['show', 'no-such-jid']), /^nexq: no job no-such-jid found/, 1);
  });

  it('show finds a job running in a node backup list', async () => {
    const raw = JSON.stringify({
      class: 'Slow',
      args: [],
      jid: 'running-1',
      queue: 'default',
      enqueued_at: 1700000000.5,
    });
    await t.redis.lpush(t.keys.backup('node-a', 'default'), raw);
    const found = await json(['show', 'running-1']);
    expect(found).to.include({ jid: 'running-1', state: 'running', node: 'node-a', queue: 'default' });
    expect((await ok(['show', 'running-1'])).split('\n')[0]).to.equal(
      'running-1: running (backup list of node node-a, queue default)',
    );
  });

  it('stats --json counts processed, failed, queues, sets and processes', async () => {
    const day = new Date().toISOString().slice(0, 10);
    await t.redis.mset(
      t.keys.stat('processed'),
      '12',
      t.keys.stat('failed'),
      '3',
      t.keys.stat('processed', day),
      '4',
      t.keys.stat('failed', day),
      '1',
    );
    await ok(['enqueue', 'default', 'A']);
    await ok(['enqueue', 'default', 'B']);
    await ok(['enqueue', 'mail', 'C']);
    await ok(['enqueue', 'mail', 'D', '--in', '600']);
    await t.redis.zadd(t.keys.retry('default'), 1, '{"jid":"r","class":"R","args":[],"queue":"default"}');
    await t.redis.zadd(
      t.keys.dead('default'),
      1,
      '{"jid":"d1","class":"D","args":[],"queue":"default"}',
      2,
      '{"jid":"d2","class":"D","args":[],"queue":"default"}',
    );
    await t.redis.sadd(t.keys.processes, 'host:1:abc');
    await t.redis.hset(t.keys.process('host:1:abc'), 'beat', String(Date.now() / 1000));
    // A member whose entry expired is not a live process.
    await t.redis.sadd(t.keys.processes, 'host:2:gone');
    // Without the other tests' namespaces in this shared Redis (test/redis/other-namespaces.test.ts).
    const { otherNamespaces, ...stats } = await json(['stats']);
    expect(otherNamespaces).to.be.an('array');
    expect(stats).to.deep.equal({
      processed: 12,
      failed: 3,
      processed_today: 4,
      failed_today: 1,
      enqueued: 3,
      queues: { default: 2, mail: 1 },
      scheduled: 1,
      retries: 1,
      dead: 2,
      processes: 1,
    });
    expect(await ok(['stats'])).to.match(/^processed\s+12$/m);
  });

  it('queues shows size and the latency of the oldest job (seconds or ms timestamps)', async () => {
    const hourAgo = Date.now() / 1000 - 3600;
    await t.redis.sadd(t.keys.queues, 'old', 'ms', 'empty');
    // The oldest job is at the right end; the newer one on the left must not count.
    await t.redis.rpush(
      t.keys.queue('old'),
      JSON.stringify({ jid: 'new', class: 'A', args: [], queue: 'old', enqueued_at: Date.now() / 1000 }),
    );
    await t.redis.rpush(
      t.keys.queue('old'),
      JSON.stringify({ jid: 'old', class: 'A', args: [], queue: 'old', enqueued_at: hourAgo }),
    );
    await t.redis.rpush(
      t.keys.queue('ms'),
      JSON.stringify({ jid: 'm', class: 'A', args: [], queue: 'ms', enqueued_at: Math.round(hourAgo * 1000) }),
    );
    const queues = await json(['queues']);
    expect(queues.map((q: { queue: string }) => q.queue)).to.deep.equal(['empty', 'ms', 'old']);
    const by = Object.fromEntries(queues.map((q: { queue: string }) => [q.queue, q]));
    expect(by.empty).to.deep.equal({ queue: 'empty', size: 0, latency: 0, paused: null });
    expect(by.old.size).to.equal(2);
    for (const q of [by.old, by.ms]) expect(q.latency).to.be.within(3599, 3600 + 600);
    expect((await ok(['queues'])).split('\n')[0]).to.match(/^QUEUE\s+SIZE\s+LATENCY\s+PAUSED$/);
    await ok(['pause', 'ms', '--mode', 'out']);
    expect((await json(['queues'])).map((q: { paused: string | null }) => q.paused)).to.deep.equal([null, 'out', null]);
    expect(await ok(['queues'])).to.match(/^ms\s+1\s+\d+\.\ds\s+out$/m);
  });

  it('pause and resume are reflected in <ns>:nexq:paused', async () => {
    expect((await ok(['pause', 'default', '--mode', 'in'])).trim()).to.equal('queue default paused (in)');
    expect(await t.redis.hget(t.keys.paused('default'), 'default')).to.equal('in');
    const paused = await json(['pause', 'mail']);
    expect(paused).to.deep.equal({ queue: 'mail', mode: 'all', paused: { default: 'in', mail: 'all' } });
    expectUsage(await cli(['enqueue', 'default', 'Foo']), /^nexq: enqueue refused: /, 1);
    expect((await ok(['resume', 'default'])).trim()).to.equal('queue default resumed');
    expect(await t.redis.hget(t.keys.paused('default'), 'default')).to.equal(null);
    expect(await json(['resume', 'nothing'])).to.deep.equal({
      queue: 'nothing',
      was_paused: null,
      paused: { mail: 'all' },
    });
  });

  it('processes lists a live worker node from its process entry', async () => {
    await t.start({ queues: ['default', 'mail'] });
    await waitFor(async () => (await t.redis.scard(t.keys.processes)) === 1, 10_000, 'the process entry');
    const identity = (await t.redis.smembers(t.keys.processes))[0];
    await waitFor(() => t.redis.hget(t.keys.process(identity), 'beat'), 10_000, 'a beat');
    const [proc] = await json(['processes']);
    expect(proc).to.include({ identity, busy: 0, quiet: false, pid: process.pid });
    expect(proc.queues).to.deep.equal(['default', 'mail']);
    expect(proc.beat).to.match(/^\d{4}-\d\d-\d\dT/);
    const table = await ok(['processes']);
    expect(table).to.include(identity).and.to.include('default,mail');
    expect(await ok(['processes', '--namespace', `${t.ns}-other`])).to.equal('(none)\n');
  });

  it('batches lists batches with their counts, and one batch with its failures', async () => {
    const node = await t.start();
    const batch = node.batch({ description: 'nightly' });
    const [, dying] = await batch.enqueueAll([
      { queue: 'default', class: 'RecordArgs', args: [t.url, t.out('jobs')] },
      { queue: 'default', class: 'Fail', args: ['no'], options: { retry: false } },
    ]);
    await waitFor(async () => (await batch.status())?.completeAt, 10_000, 'the batch to complete');
    const [listed] = await json(['batches']);
    expect(listed).to.include({ bid: batch.bid, description: 'nightly', total: 2, pending: 1, failed: 1, dead: 1 });
    expect(await ok(['batches']))
      .to.include(batch.bid)
      .and.to.include('nightly');
    expect(await ok(['batches', batch.bid])).to.include(`failures: ${dying}`);
    expect((await json(['batches', batch.bid])).failures).to.deep.equal([dying]);
    // Not found, as a jid is (exit 1, its code), not a usage error.
    expectUsage(await cli(['batches', 'no-such-bid']), /^nexq: no batch "no-such-bid"/, 1);
    const missing = await cli(['batches', 'no-such-bid', '--json']);
    expect(JSON.parse(missing.stderr).error).to.include({ code: 'BATCH_NOT_FOUND' });
  });

  it('takes --redis and --namespace flags over the environment, and --config files', async () => {
    const jid = (
      await cli(['enqueue', 'default', 'Flagged', '--redis', t.url, '--namespace', t.ns], {
        REDIS_URL: 'redis://127.0.0.1:1',
        NEXQ_NAMESPACE: 'wrong',
      })
    ).stdout.trim();
    expect(jid).to.match(/^[0-9a-f-]{36}$/);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expectUsage(
      await cli(['stats', '--config', '/no/such/file.json']),
      /^nexq: invalid config: --config must be a readable JSON file/,
    );
  });
});
