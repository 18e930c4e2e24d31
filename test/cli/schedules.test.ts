// `nexq schedules`: set, list (table and --json) and remove schedules kept in Redis, as a real
// `nexq` process against the test Redis.
import { expect } from 'chai';
import { CLI, Run, runProcess } from '../support/cli';
import { useNodes } from '../support/node';

describe('nexq schedules', () => {
  const t = useNodes();

  function cli(args: string[]): Promise<Run> {
    return runProcess(process.execPath, [CLI, ...args], { REDIS_URL: t.url, NEXQ_NAMESPACE: t.ns }, 15_000);
  }

  it('sets a schedule, lists it with its zone and next run, and removes it', async () => {
    const set = await cli([
      'schedules',
      'set',
      'nightly',
      '0 2 * * *',
      'mail',
      'Digest',
      '--args',
      '[1]',
      '--tz',
      'Asia/Tokyo',
    ]);
    expect(set.stderr).to.equal('');
    expect(set.stdout).to.equal('schedule nightly set\n');
    const table = await cli(['schedules']);
    expect(table.stdout.split('\n')[0]).to.match(/^NAME\s+CRON\s+TZ\s+QUEUE\s+CLASS\s+NEXT RUN\s+LAST RUN\s+ARGS$/);
    // The next run on the schedule's own clock (02:00 in Tokyo), with its offset; no run yet.
    expect(table.stdout).to.match(
      /nightly\s+0 2 \* \* \*\s+Asia\/Tokyo\s+mail\s+Digest\s+\d{4}-\d\d-\d\dT02:00:00\+09:00\s+-\s+\[1\]/,
    );
    const [listed] = JSON.parse((await cli(['schedules', '--json'])).stdout);
    expect(listed).to.include({ name: 'nightly', cron: '0 2 * * *', queue: 'mail', class: 'Digest', tz: 'Asia/Tokyo' });
    const removed = await cli(['schedules', 'remove', 'nightly']);
    expect(removed.stdout).to.equal('schedule nightly removed\n');
    expect((await cli(['schedules'])).stdout).to.equal('(none)\n');
  });

  it('refuses a bad schedule in one line, exit 2', async () => {
    const result = await cli(['schedules', 'set', 'x', '0 2 * * *', 'mail', 'Digest', '--tz', 'Nowhere/Land']);
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.match(
      /schedules\.set\("x"\)\.tz must be an IANA time zone name \(got "Nowhere\/Land"\)$/,
    );
  });
});
