import { expect } from 'chai';
import Redis from 'ioredis';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, fixturesJobs } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { freePort } from '../support/redis-server';

const CLI = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 15_000,
  });
}

describe('nexq CLI', () => {
  const t = useNodes();

  /** `nexq start` on the test's Redis and namespace with the fixture jobs; stderr read as it comes. */
  function startNode(args: string[], logLevel: string) {
    const child = spawn(
      process.execPath,
      [CLI, 'start', '--redis', t.url, '--namespace', t.ns, '--jobs', fixturesJobs, ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NEXQ_LOG_LEVEL: logLevel, NEXQ_POLL_TIMEOUT: '20' },
      },
    );
    let text = '';
    child.stderr.on('data', (d) => (text += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, stderr: () => text, exited };
  }

  it('start runs jobs until SIGTERM, then stops gracefully and exits 0', async () => {
    const { child, stderr, exited } = startNode(['--queues', 'default:2,mail:1', '--node-id', 'cli-node'], 'warn');
    try {
      const producer = await t.start({ mode: 'enqueuer' });
      await producer.enqueue('mail', 'Record', [t.url, t.out('cli'), 'via-cli']);
      const [record] = await t.waitForRecords(t.out('cli'), 1, 10_000);
      expect(record).to.include({ value: 'via-cli', queue: 'mail' });
      const processes = await t.redis.smembers(t.keys.processes);
      expect(processes).to.have.length(1);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(stderr()).to.include('SIGTERM received, stopping');
      expect(await t.redis.smembers(t.keys.processes)).to.deep.equal([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a second SIGINT stops at once with exit 130, saying how many jobs stay in backup and when they run', async () => {
    const { child, stderr, exited } = startNode(['--node-id', 'forced-node', '--shutdown-timeout', '60000'], 'error');
    try {
      const producer = await t.start({ mode: 'enqueuer' });
      await producer.enqueue('default', 'Sleep', [60_000]);
      await waitFor(
        async () => (await t.redis.llen(t.keys.backup('forced-node', 'default'))) === 1,
        10_000,
        'the job running',
      );
      child.kill('SIGINT');
      await waitFor(() => stderr().includes('SIGINT received, stopping'), 5000, 'the graceful stop');
      child.kill('SIGINT');
      expect(await exited).to.equal(130);
      expect(stderr()).to.include(
        "nexq: forced stop: 1 job left in backup, they run again on this node's next start or within nodeTimeout (30 s) on another\n",
      );
      expect(await t.redis.llen(t.keys.backup('forced-node', 'default'))).to.equal(1);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an unknown option is one clear line on stderr and exit code 2', () => {
    const result = runCli(['start', '--bogus', '1']);
    expect(result.status).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.deep.equal(['nexq: unknown option --bogus (see --help)']);
  });

  it('a bad value names the option and what it expects, without a stack trace', () => {
    const result = runCli(['start', '--queues', 'a b']);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.match(/^nexq: invalid config: --queues must be a list like default:10,mail:5/);
    expect(result.stderr).not.to.include('    at ');
  });

  it('a bad environment variable is refused the same way', () => {
    const result = runCli(['start'], { NEXQ_CONCURRENCY: 'lots' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('NEXQ_CONCURRENCY must be a whole number');
  });

  it('a bad YAML config file is one line naming the file (and the key), exit code 2', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-cli-'));
    writeFileSync(path.join(dir, 'broken.yaml'), 'queues: [default\n');
    writeFileSync(path.join(dir, 'wrong.yml'), 'queues:\n  - { name: mail, concurrency: -1 }\n');
    const broken = runCli(['start', '--config', path.join(dir, 'broken.yaml')]);
    expect(broken.status).to.equal(2);
    expect(broken.stderr.trim().split('\n')).to.have.length(1);
    expect(broken.stderr).to.match(
      /^nexq: invalid config: --config must be valid YAML \(got ".*broken\.yaml line \d+, column \d+: /,
    );
    const wrong = runCli(['start', '--config', path.join(dir, 'wrong.yml')]);
    expect(wrong.status).to.equal(2);
    expect(wrong.stderr.trim().split('\n')).to.deep.equal([
      `nexq: invalid config: queues[0].concurrency (from ${path.join(dir, 'wrong.yml')}) must be an integer >= 1 (got -1)`,
    ]);
  });

  it('a missing --jobs folder is one line naming it, exit code 2', () => {
    const missing = path.join(mkdtempSync(path.join(os.tmpdir(), 'nexq-cli-')), 'jobs');
    const result = runCli(['start', '--redis', t.url, '--namespace', t.ns, '--jobs', missing]);
    expect(result.status).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.deep.equal([
      `nexq: invalid config: jobsDir (from --jobs) must be a folder that exists (got ${JSON.stringify(missing)})`,
    ]);
  });

  it('a handler that does not load, or has no perform, stops the start: one line naming the file, exit code 2', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-cli-'));
    const nope = runCli(['start', '--redis', t.url, '--namespace', t.ns, '--jobs', fixturesJobs], {
      NEXQ_JOBS: JSON.stringify({ Foo: path.join(dir, 'nope.js') }),
    });
    expect(nope.status).to.equal(2);
    const missing = path.join(dir, 'nope.js');
    expect(nope.stderr.trim().split('\n')).to.deep.equal([
      `nexq: handler Foo: ${missing} failed to load: Error: Cannot find module '${missing}'`,
    ]);
    writeFileSync(path.join(dir, 'Lazy.js'), 'exports.run = () => {};\n');
    const lazy = runCli(['start', '--redis', t.url, '--namespace', t.ns, '--jobs', dir]);
    expect(lazy.status).to.equal(2);
    expect(lazy.stderr.trim().split('\n')).to.deep.equal([
      `nexq: handler Lazy: ${path.join(dir, 'Lazy.js')} exports no perform function (named, default, or default.perform)`,
    ]);
  });

  it('an unknown option in a config file is one line saying which was meant, exit code 2', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'nexq-cli-')), 'nexq.yaml');
    writeFileSync(file, 'concurency: 3\n');
    const result = runCli(['start', '--config', file]);
    expect(result.status).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.deep.equal([
      `nexq: invalid config: concurency (from ${file}) is not an option; did you mean concurrency?`,
    ]);
  });

  it('warns in one line about a misspelt NEXQ_ variable, naming the one meant', () => {
    const result = runCli(['start', '--queues', 'a b'], { NEXQ_CONCURENCY: '5' });
    expect(result.status).to.equal(2);
    expect(result.stderr.trim().split('\n')[0]).to.equal(
      'nexq: NEXQ_CONCURENCY is not a nexq setting and is ignored; did you mean NEXQ_CONCURRENCY?',
    );
  });

  it('start --help prints the options and exits 0', () => {
    const result = runCli(['start', '--help']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.include('--shutdown-timeout MS');
  });

  it('an unknown command exits 2', () => {
    const result = runCli(['frobnicate']);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('unknown command "frobnicate"');
  });

  it('--local-redis keeps the database number of REDIS_URL', async function () {
    this.timeout(30_000);
    const port = await freePort();
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'nexq-cli-'));
    const child = spawn(
      process.execPath,
      [CLI, 'start', '--local-redis', '--namespace', t.ns, '--jobs', fixturesJobs],
      {
        cwd,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}/3`, NEXQ_LOG_LEVEL: 'warn' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const local = new Redis({ port, db: 3, lazyConnect: true, retryStrategy: () => 100 }).on('error', () => {});
    try {
      // `*ns*`: in the per-queue key layout the node-wide keys start with `{ns}:`. The process list
      // is written by the node's first beat, once it has started (its id's claim comes earlier).
      await waitFor(
        async () => (await local.keys(`*${t.ns}*:processes`).catch(() => [])).length > 0,
        20_000,
        "the node's process list in db 3",
      );
      await local.select(0);
      expect(await local.keys(`*${t.ns}*`)).to.deep.equal([]);
      child.kill('SIGTERM');
      expect(await exited, stderr).to.equal(0);
    } finally {
      child.kill('SIGKILL');
      // The local redis-server runs in its own process group: make sure it is gone.
      await local.shutdown('NOSAVE').catch(() => {});
      local.disconnect();
    }
  });

  it('waits for a Redis that is not there yet instead of crashing, saying so once without the password', async function () {
    this.timeout(15_000);
    const child = spawn(
      process.execPath,
      [CLI, 'start', '--redis', 'redis://:s3cret-pw@127.0.0.1:1/0', '--jobs', fixturesJobs],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    try {
      await waitFor(() => stderr.includes('cannot reach Redis'), 10_000, 'the unreachable-Redis message');
      expect(child.exitCode).to.equal(null);
      // The address and why, in one line.
      expect(stderr).to.include(
        'cannot reach Redis at redis://:***@127.0.0.1:1/0 (from the --redis flags) (connect ECONNREFUSED 127.0.0.1:1); still trying',
      );
      expect(stderr).not.to.include('s3cret-pw');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
