// Redis ACL users and TLS, with credentials kept out of every log line.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Nexq } from '../src/nexq';
import { captureLogs } from './support/capture-logs';
import { freshNamespace } from './support/global-hooks';
import { useNodes, waitFor } from './support/node';
import { fixturesJobs, repoRoot } from './support/paths';
import { RedisServer } from './support/redis-server';

/** A CA and a certificate for 127.0.0.1 signed by it, made with openssl for this run. */
function makeCertificates(): { cert: string; key: string; ca: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-tls-'));
  const run = (args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=nexq-test-ca',
  ]);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'redis.key', '-out', 'redis.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run([
    'x509',
    '-req',
    '-in',
    'redis.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'redis.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  return { cert: path.join(dir, 'redis.crt'), key: path.join(dir, 'redis.key'), ca: path.join(dir, 'ca.crt') };
}

describe('Redis ACL users', () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start({
      args: ['--user', 'default', 'off', '--user', 'nexq', 'on', '>acl-Secret-77', '~*', '&*', '+@all'],
    });
  });
  after(() => server.stop());
  const t = useNodes({ url: () => `redis://nexq:acl-Secret-77@127.0.0.1:${server.port}` });

  it('connects as the ACL user, runs jobs, and never logs the password', async () => {
    const logs = captureLogs();
    const node = await t.start({ logger: logs.logger });
    await node.enqueue('default', 'Record', [t.url, t.out('acl'), 'ok']);
    const [record] = await t.waitForRecords(t.out('acl'));
    expect(record.value).to.equal('ok');
    await node.enqueue('default', 'Fail', []);
    await waitFor(() => t.redis.zcard(t.keys.retry('default')), 5000, 'a failure');
    await t.stop(node);
    expect(logs.text()).to.include('redis://nexq:***@127.0.0.1');
    expect(logs.text()).not.to.include('acl-Secret-77');
  });
});

describe('Redis over TLS', () => {
  let server: RedisServer;
  let certs: { cert: string; key: string; ca: string };
  before(async function () {
    this.timeout(20_000);
    certs = makeCertificates();
    server = await RedisServer.start({ tls: certs });
  });
  after(() => server.stop());

  it('runs jobs with ioredis tls options (the CA given in code)', async () => {
    const ns = freshNamespace();
    const redis = { host: '127.0.0.1', port: server.port, tls: { ca: readFileSync(certs.ca) } };
    const node = await Nexq.start({
      redis,
      namespace: ns,
      jobs: { Quick: path.join(fixturesJobs, 'Sleep.js') },
      logLevel: 'error',
      pollTimeout: 20,
    });
    try {
      await node.enqueue('default', 'Quick', [1]);
      const client = node.node.ctx.redis;
      await waitFor(async () => (await client.get(`${ns}:stat:processed`)) === '1', 8000, 'the job processed over TLS');
      expect(await client.zcard(`${ns}:retry`)).to.equal(0);
    } finally {
      await node.stop();
    }
  });

  it('runs a node from a rediss:// URL (the CA trusted through NODE_EXTRA_CA_CERTS)', async function () {
    this.timeout(20_000);
    const cli = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');
    const child = spawn(
      process.execPath,
      [
        cli,
        'start',
        '--redis',
        `rediss://127.0.0.1:${server.port}`,
        '--namespace',
        freshNamespace(),
        '--jobs',
        fixturesJobs,
      ],
      {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: certs.ca, NEXQ_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    try {
      await waitFor(() => stderr.includes('started'), 15_000, 'the node to start over TLS');
      expect(stderr).to.include(`rediss://127.0.0.1:${server.port}`);
      expect(stderr).not.to.include('certificate');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
