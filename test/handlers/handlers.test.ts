// Which module runs a job, and what the handler sees.
import { expect } from 'chai';
import { fixture } from '../support/paths';
import { useNodes } from '../support/node';

describe('job handlers', () => {
  const t = useNodes();

  for (const className of ['Mailer::Welcome', 'Elixir.Mailer.Welcome', 'Mailer.Welcome']) {
    it(`runs Mailer/Welcome.js for class ${className}`, async () => {
      const out = t.out('mail');
      const node = await t.start();
      await node.enqueue('default', className, [t.url, out, 'hi']);
      const [record] = await t.waitForRecords(out);
      expect(record).to.include({ value: 'hi', className });
    });
  }

  it('runs the default export of an ES module', async () => {
    const out = t.out('esm');
    const node = await t.start();
    await node.enqueue('default', 'Esm', [t.url, out, 42]);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ value: 42, esm: true, className: 'Esm' });
  });

  it('runs the module named in `jobs` for a class, with no jobsDir at all', async () => {
    const out = t.out('custom');
    const node = await t.start({ jobsDir: undefined, jobs: { Custom: fixture('Record.js') } });
    await node.enqueue('default', 'Custom', [t.url, out, 'mapped']);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ value: 'mapped', className: 'Custom' });
  });

  it('prefers the module named in `jobs` over the one found in jobsDir', async () => {
    const out = t.out('override');
    const node = await t.start({ jobs: { Fail: fixture('Record.js') } });
    await node.enqueue('default', 'Fail', [t.url, out, 'not a failure']);
    const [record] = await t.waitForRecords(out);
    expect(record.value).to.equal('not a failure');
  });

  it('gives the handler its jid, queue and retry count through `this`', async () => {
    const out = t.out('ctx');
    const node = await t.start({ queues: ['mail'] });
    const jid = await node.enqueue('mail', 'Record', [t.url, out, 'ctx']);
    const [first] = await t.waitForRecords(out);
    expect(first).to.include({ value: 'ctx', jid, queue: 'mail', className: 'Record' });
    expect(first).to.include({ retryCount: 0 });

    const retried = JSON.stringify({
      class: 'Record',
      args: [t.url, out, 'again'],
      jid: 'r-7',
      queue: 'mail',
      retry_count: 7,
    });
    await t.redis.lpush(t.keys.queue('mail'), retried);
    const records = await t.waitForRecords(out, 2);
    expect(records[1]).to.include({ value: 'again', jid: 'r-7', queue: 'mail', retryCount: 7, className: 'Record' });
  });

  it('runs the wrapped class of an ActiveJob payload with its arguments', async () => {
    const out = t.out('aj');
    await t.start();
    const raw = JSON.stringify({
      class: 'ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper',
      wrapped: 'Record',
      queue: 'default',
      args: [{ job_class: 'Record', arguments: [t.url, out, 'wrapped'] }],
      jid: 'aj-1',
    });
    await t.redis.lpush(t.keys.queue('default'), raw);
    const [record] = await t.waitForRecords(out);
    expect(record).to.include({ value: 'wrapped', jid: 'aj-1', className: 'Record' });
  });
});
