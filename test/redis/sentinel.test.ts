// Sentinel from the command line: `nexq enqueue --redis-sentinels ... --redis-sentinel-name ...`
// with the passwords in the environment reaches the master the sentinels name, and a node given
// the same set-up as options runs the job. (Failover: test/chaos/sentinel-failover.chaos.ts.)
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { useNodes } from '../support/node';
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
    expect(run.stderr).to.equal('');
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
});
