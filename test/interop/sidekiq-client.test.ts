// Jobs cross between the real Sidekiq and nexq in both directions, on Sidekiq's key layout.
import { expect } from 'chai';
import { fixture } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { sidekiqApi, SidekiqServer, useSidekiqRedis } from './support';

const TRICKY_VALUES = [
  'plain',
  42,
  -7,
  3.25,
  1e-7,
  { nested: { list: [1, 'two', null, { deep: true }] } },
  [[], {}],
  'ünïcødé ✓ 日本',
  null,
  true,
  false,
  '',
];

describe('Sidekiq interop: job payloads', function () {
  this.timeout(60_000);
  const redis = useSidekiqRedis();
  const t = useNodes({ url: () => redis.url, namespace: '' });
  const startNexq = () => t.start({ jobs: { Record: fixture('RecordArgs.js'), Flaky: fixture('FailOnce.js') } });

  it("runs jobs pushed by Sidekiq's perform_async with every argument type intact", async () => {
    await startNexq();
    const jid = sidekiqApi(redis.url, 'perform_async', {
      class: 'Record',
      args: [t.url, t.out('async'), ...TRICKY_VALUES],
    });
    const [record] = await t.waitForRecords(t.out('async'));
    expect(record.jid).to.equal(jid);
    expect(record.values).to.deep.equal(TRICKY_VALUES);
  });

  it('runs jobs Sidekiq scheduled with perform_in once they are due', async () => {
    await startNexq();
    sidekiqApi(redis.url, 'perform_in', { class: 'Record', args: [t.url, t.out('in'), 'later'], seconds: 1 });
    expect(await t.redis.zcard('schedule')).to.equal(1);
    const [record] = await t.waitForRecords(t.out('in'), 1, 10_000);
    expect(record.values).to.deep.equal(['later']);
    expect(await t.redis.zcard('schedule')).to.equal(0);
  });

  it('runs every job of Sidekiq::Client.push_bulk', async () => {
    await startNexq();
    const args = Array.from({ length: 20 }, (_, i) => [t.url, t.out('bulk'), i, { i }]);
    const jids: string[] = sidekiqApi(redis.url, 'push_bulk', { class: 'Record', args });
    const records = await t.waitForRecords(t.out('bulk'), 20);
    expect(records.map((r) => r.jid).sort()).to.deep.equal([...jids].sort());
    expect(records.map((r) => r.values[0]).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  it('has a real Sidekiq server run jobs nexq enqueued with enqueue, enqueueIn and enqueueAll', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueue('default', 'Record', [t.url, t.out('rb'), 'one', ...TRICKY_VALUES]);
    await producer.enqueueIn('default', 1, 'Record', [t.url, t.out('rb'), 'two']);
    await producer.enqueueAll([
      { queue: 'default', class: 'Record', args: [t.url, t.out('rb'), 'three'] },
      { queue: 'default', class: 'Record', args: [t.url, t.out('rb'), 'four'] },
    ]);
    const sidekiq = SidekiqServer.start(redis.url);
    try {
      await waitFor(async () => (await t.redis.llen(t.out('rb'))) >= 4, 30_000, 'Sidekiq to run 4 jobs').catch(
        (err: unknown) => {
          throw new Error(`${(err as Error).message}; sidekiq said: ${sidekiq.output.slice(-1000)}`);
        },
      );
      const records = await t.records(t.out('rb'));
      const byFirst = Object.fromEntries(records.map((r: any) => [r.values[0], r.values.slice(1)]));
      expect(Object.keys(byFirst).sort()).to.deep.equal(['four', 'one', 'three', 'two']);
      expect(byFirst.one).to.deep.equal(TRICKY_VALUES);
    } finally {
      await sidekiq.stop();
    }
  });

  it('keeps fields it does not use through a failure and a retry, and writes a backtrace Sidekiq can read', async () => {
    await t.start({ jobs: { Fail: fixture('Fail.js') } });
    sidekiqApi(redis.url, 'push_raw', {
      class: 'Fail',
      args: ['x'],
      queue: 'default',
      backtrace: true,
      tags: ['alpha', 'beta'],
      custom_field: { keep: [1, 2.5, 'x'] },
    });
    const [entry] = await waitFor(
      () => sidekiqApi(redis.url, 'retries').length > 0 && sidekiqApi(redis.url, 'retries'),
      10_000,
      'a retry entry',
    );
    expect(entry).to.include({ class: 'Fail', error_class: 'BoomError', error_message: 'x', retry_count: 0 });
    expect(entry.tags).to.deep.equal(['alpha', 'beta']);
    expect(entry.custom_field).to.deep.equal({ keep: [1, 2.5, 'x'] });
    expect(entry.created_at).to.be.a('number');
    expect(entry.failed_at).to.be.a('number');
    const [backtrace] = sidekiqApi(redis.url, 'retry_backtraces');
    expect(backtrace).to.be.an('array').that.is.not.empty;
    expect(backtrace.join('\n')).to.include('Fail.js');
  });

  it('runs an ActiveJob-wrapped job with the handler named by `wrapped` and the ActiveJob arguments', async () => {
    await startNexq();
    sidekiqApi(redis.url, 'push_raw', {
      class: 'ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper',
      wrapped: 'Record',
      queue: 'default',
      args: [
        {
          job_class: 'Record',
          job_id: 'aj-1',
          queue_name: 'default',
          arguments: [t.url, t.out('aj'), 'from-rails', { n: 1 }],
          executions: 0,
        },
      ],
    });
    const [record] = await t.waitForRecords(t.out('aj'));
    expect(record.values).to.deep.equal(['from-rails', { n: 1 }]);
  });

  it('writes float-second timestamps with a fraction by default and integer milliseconds on request, reading both', async () => {
    const seconds = await t.start({ mode: 'enqueuer' });
    await seconds.enqueue('other', 'Record', []);
    const [secondsJob] = await t.redis.lrange('queue:other', 0, -1);
    expect(secondsJob)
      .to.match(/"enqueued_at":\d+\.\d+/)
      .and.match(/"created_at":\d+\.\d+/);
    const millis = await t.start({ mode: 'enqueuer', timestamps: 'milliseconds' });
    await millis.enqueue('other2', 'Record', []);
    const [millisJob] = await t.redis.lrange('queue:other2', 0, -1);
    expect(millisJob).to.match(/"enqueued_at":\d{13}[,}]/);
    const now = Date.now() / 1000;
    await t.start({ jobs: { Record: fixture('Record.js') }, queues: ['default'] });
    const ms = Date.now();
    await t.redis.lpush(
      'queue:default',
      JSON.stringify({
        class: 'Record',
        args: [t.url, t.out('ts'), 'ms'],
        jid: 'j-ms',
        queue: 'default',
        enqueued_at: ms,
      }),
    );
    await t.redis.lpush(
      'queue:default',
      JSON.stringify({
        class: 'Record',
        args: [t.url, t.out('ts'), 's'],
        jid: 'j-s',
        queue: 'default',
        enqueued_at: ms / 1000,
      }),
    );
    const records = await t.waitForRecords(t.out('ts'), 2);
    for (const r of records) expect(r.enqueuedAt).to.be.within(now - 5, now + 5);
  });
});
