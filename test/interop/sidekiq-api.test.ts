// What Sidekiq's own API (RetrySet, DeadSet, ProcessSet, Workers, Stats) sees of a nexq node.
import { expect } from 'chai';
import os from 'node:os';
import { fixture } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { sidekiqApi, useSidekiqRedis } from './support';

describe('Sidekiq interop: Sidekiq API on a nexq node', function () {
  this.timeout(60_000);
  const redis = useSidekiqRedis();
  const t = useNodes({ url: () => redis.url, namespace: '' });
  const jobs = {
    Flaky: fixture('FailOnce.js'),
    Fail: fixture('Fail.js'),
    Sleep: fixture('Sleep.js'),
    Record: fixture('Record.js'),
  };
  const api = (command: string, input: unknown = null) => sidekiqApi(redis.url, command, input);

  it("files a failed job where Sidekiq::RetrySet reads it, and Sidekiq's retry_all makes nexq run it again", async () => {
    await t.start({ jobs });
    const jid = await (await t.start({ mode: 'enqueuer' })).enqueue('default', 'Flaky', [t.url, t.out('flaky')]);
    const [entry] = await waitFor(() => api('retries').length > 0 && api('retries'), 10_000, 'a RetrySet entry');
    expect(entry).to.include({
      jid,
      class: 'Flaky',
      retry_count: 0,
      error_class: 'Error',
      error_message: 'first run fails',
    });
    expect(entry.failed_at)
      .to.be.a('number')
      .within(Date.now() / 1000 - 30, Date.now() / 1000 + 1);
    expect(entry.score).to.be.above(Date.now() / 1000 + 10);
    api('retry_all');
    const [record] = await t.waitForRecords(t.out('flaky'));
    // Sidekiq's manual retry takes one off retry_count, so a failure now would count as the first again.
    expect(record).to.deep.equal({ jid, retryCount: -1 });
    expect(api('retries')).to.deep.equal([]);
  });

  it('files a job out of retries where Sidekiq::DeadSet reads it, and DeadSet#retry_all runs it again', async () => {
    await t.start({ jobs });
    const jid = await (
      await t.start({ mode: 'enqueuer' })
    ).enqueue('default', 'Flaky', [t.url, t.out('dead')], { retry: 0 });
    const [entry] = await waitFor(() => api('dead').length > 0 && api('dead'), 10_000, 'a DeadSet entry');
    expect(entry).to.include({ jid, retry_count: 0, error_message: 'first run fails' });
    expect(api('retries')).to.deep.equal([]);
    api('dead_retry_all');
    const [record] = await t.waitForRecords(t.out('dead'));
    expect(record.jid).to.equal(jid);
  });

  it('appears in Sidekiq::ProcessSet with hostname, pid, queues and concurrency, its running jobs in Sidekiq::Workers, and in the fields Sidekiq 7 and 8 read', async () => {
    const node = await t.start({
      jobs,
      queues: [
        { name: 'default', concurrency: 3 },
        { name: 'mail', concurrency: 2 },
      ],
      heartbeatInterval: 1,
    });
    const jid = await node.enqueue('mail', 'Sleep', [4000]);
    const [proc] = await waitFor(
      () => {
        const procs = api('processes');
        return procs.length === 1 && procs[0].busy === 1 && procs;
      },
      10_000,
      'the process with one busy job',
    );
    expect(proc).to.include({ hostname: os.hostname(), pid: process.pid, concurrency: 5, quiet: 'false' });
    expect(proc.queues).to.deep.equal(['default', 'mail']);
    const workers = api('workers');
    expect(workers).to.have.length(1);
    expect(workers[0]).to.include({ process: proc.identity, queue: 'mail', jid, class: 'Sleep' });
    expect(api('stats').workers_size).to.equal(1);

    // Sidekiq 6.5, 7 and 8 read <identity>:work: the same entries, run_at in epoch seconds.
    const identity: string = proc.identity;
    const work = await t.redis.hgetall(`${identity}:work`);
    expect(work).to.deep.equal(await t.redis.hgetall(`${identity}:workers`));
    const [entry] = Object.values(work).map((text) => JSON.parse(text));
    expect(entry.queue).to.equal('mail');
    expect(JSON.parse(entry.payload)).to.include({ jid, class: 'Sleep' });
    expect(Number.isInteger(entry.run_at)).to.equal(true);
    expect(await t.redis.ttl(`${identity}:work`)).to.be.within(1, 60);
    // Sidekiq 8.1 reads concurrency from the process hash; 7 reads weights, version, embedded from info.
    const hash = await t.redis.hgetall(identity);
    expect(hash.concurrency).to.equal('5');
    const info = JSON.parse(hash.info);
    expect(info).to.include({ concurrency: 5, embedded: false });
    expect(info.version).to.match(/^\d+\.\d+\.\d+/);
    expect(info.weights).to.deep.equal([{ default: 0, mail: 0 }]);
    expect(info.capsules).to.deep.equal({
      default: { concurrency: 5, mode: 'strict', weights: { default: 0, mail: 0 } },
    });
    await t.stop(node);
    expect(await t.redis.exists(`${identity}:work`, `${identity}:workers`, identity)).to.equal(0);
  });

  it('is counted by Sidekiq::Stats: processed counts every run, failed the failures', async () => {
    const node = await t.start({ jobs });
    for (let i = 0; i < 3; i++) await node.enqueue('default', 'Record', [t.url, t.out('s'), i]);
    await node.enqueue('default', 'Fail', [], { retry: false });
    await node.enqueue('default', 'Fail', []);
    const stats = await waitFor(
      () => {
        const s = api('stats');
        return s.processed === 5 && s.failed === 2 && s;
      },
      10_000,
      'Sidekiq::Stats to count 5 processed, 2 failed',
    );
    expect(stats).to.include({ retry_size: 1, dead_size: 0 });
  });

  it("quiets on Sidekiq's quiet! (TSTP) and stops on stop! (TERM)", async () => {
    const node = await t.start({ jobs, heartbeatInterval: 1 });
    const [proc] = await waitFor(() => api('processes').length === 1 && api('processes'), 10_000, 'the process entry');
    api('quiet', proc.identity);
    await waitFor(() => api('processes')[0]?.quiet === 'true', 10_000, 'quiet to show in ProcessSet');
    await node.enqueue('default', 'Record', [t.url, t.out('quiet'), 1]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.redis.llen('queue:default')).to.equal(1);
    api('stop', proc.identity);
    await node.node.stopped;
    expect(node.node.running).to.equal(false);
    expect(api('processes')).to.deep.equal([]);
  });
});
