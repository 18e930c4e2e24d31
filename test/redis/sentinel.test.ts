// Sentinel from the command line: `nexq enqueue --redis-sentinels ... --redis-sentinel-name ...`
// with the passwords in the environment reaches the master the sentinels name, and a node given
// the same set-up as options runs the job; a client ioredis ends when its failover detector hears
// +switch-master while it connects is replaced. (Failover: test/chaos/sentinel-failover.chaos.ts.)
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { captureLogs } from '../support/capture-logs';
import { SentinelSetup } from '../support/redis-sentinel';

const CLI = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const PASSWORDS = { password: 'master-pw-51d2', sentinelPassword: 'sentinel-pw-c07b' };

describe('Sentinel', function () {
  this.timeout(30_000);
  const t = useNodes();
  let setup: SentinelSetup;

  before(async () => {
    setup = await SentinelSetup.start(PASSWORDS);
  });

  after(async () => {
    await (setup as SentinelSetup | undefined)?.stop(); // unset when before failed
  });

  it('enqueues from the CLI through the sentinels and runs the job on a node', async () => {
    const out = t.out('ran');
    const sentinels = setup.sentinelAddresses.map((s) => `${s.host}:${s.port}`).join(',');
    const env = {
      ...process.env,
      NEXQ_NAMESPACE: t.ns,
      NEXQ_REDIS_PASSWORD: PASSWORDS.password,
      NEXQ_REDIS_SENTINEL_PASSWORD: PASSWORDS.sentinelPassword,
    };
    const args = [
      CLI,
      'enqueue',
      'default',
      'Record',
      JSON.stringify([t.url, out, 'via sentinel']),
      '--redis-sentinels',
      sentinels,
      '--redis-sentinel-name',
      setup.name,
    ];
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, args, { encoding: 'utf8', timeout: 20_000, env }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr }),
      );
    });
    // The node starts after the enqueue: the CLI's warning that none serves the queue yet is all it says.
    expect(run.stderr.replace(/^nexq: warning: no live node serves .*\n/gm, '')).to.equal('');
    expect(run.code).to.equal(0);
    const jid = run.stdout.trim();
    const data = setup.client();
    try {
      expect(await data.llen(t.keys.queue('default')), 'the job on the master the sentinels name').to.equal(1);
    } finally {
      data.disconnect();
    }
    await t.start({ redis: setup.redisOption() });
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ value: 'via sentinel', jid });
  });

  it('+switch-master heard while the client connects ends it (ioredis 5): the node replaces it and goes on', async () => {
    const logs = captureLogs();
    const node = await t.start({ redis: setup.redisOption(), logger: logs.logger });
    const main = node.node.ctx.redis as unknown as {
      status: string;
      stream: { destroy(): void };
      once(event: string, fn: () => void): void;
      connector: { failoverDetector?: { sentinels: Array<{ client: { emit(...args: unknown[]): void } }> } };
    };
    // The failover detector subscribed on the sentinels for this connection...
    const detector = await waitFor(() => main.connector.failoverDetector, 5000, 'the failover detector');
    // ...hears +switch-master just as the client reconnects: ioredis' connect() then fails and the
    // client ends for good (what issue #25 saw after a kill -9 of the master).
    main.once('connecting', () =>
      detector.sentinels[0].client.emit('message', '+switch-master', `${setup.name} 127.0.0.1 1 127.0.0.1 2`),
    );
    main.stream.destroy();
    await waitFor(() => main.status === 'end', 5000, 'the client to end');
    await waitFor(() => (node.node.ctx.redis as unknown) !== main, 5000, 'a fresh client');
    const out = t.out('after');
    const jid = await node.enqueue('default', 'Record', [t.url, out, 'after the end']);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ jid });
    expect(logs.text()).to.include('redis-connection exited: the main Redis connection ended');
  });
});
