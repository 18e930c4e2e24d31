// A producer warns once per queue or class of jobs no live node would run (a misspelt queue, a
// class no node serving the queue has a handler for), with "did you mean", from the process
// entries; `nexq enqueue` says it on stderr. The job is enqueued all the same.
import { expect } from 'chai';
import { captureLogs } from '../support/capture-logs';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

describe('jobs no live node would run', () => {
  const t = useNodes();
  const { cli } = cliAgainst(() => t);

  /** A worker node, once its process entry (written by its first beat) is there. */
  async function worker(options: Parameters<typeof t.start>[0] = {}) {
    const node = await t.start(options);
    const info = await waitFor(() => t.redis.hget(t.keys.process(node.node.ctx.identity), 'info'), 5000);
    return { node, info: JSON.parse(info) };
  }

  it("the worker's process entry lists its handlers' classes", async () => {
    const { info } = await worker();
    expect(info.classes).to.include.members(['Record', 'Fail']);
  });

  it('a producer warns once per queue or class, with the closest name, and enqueues the job', async () => {
    await worker({ queues: ['default', 'mail'] });
    const logs = captureLogs('pretty');
    const producer = await t.start({ mode: 'enqueuer', logger: logs.logger });
    const warnings = () =>
      logs
        .text()
        .split('\n')
        .filter((line) => line.includes('no live node'));
    await producer.enqueue('default', 'Recrod', []);
    await producer.enqueue('default', 'Recrod', []);
    await producer.enqueue('mial', 'Record', []);
    await producer.enqueueIn('mial', 60, 'Record', []);
    await producer.enqueue('default', 'Record', []); // served and handled: nothing to say
    await waitFor(() => warnings().length >= 2, 5000, 'the two warnings');
    await producer.enqueueAll([{ queue: 'nowhere-like-it', class: 'Record', args: [] }]);
    await waitFor(() => warnings().length >= 3, 5000, 'the third warning');
    expect(warnings().map((line) => line.replace(/^.*\[enqueuer\] /, ''))).to.deep.equal([
      'no live node has a handler for class "Recrod" (of those serving queue "default"): its jobs fail and are retried; did you mean "Record"?',
      'no live node serves queue "mial": its jobs wait until one does; did you mean "mail"?',
      'no live node serves queue "nowhere-like-it": its jobs wait until one does',
    ]);
    expect(await t.redis.llen(t.keys.queue('mial'))).to.equal(1);
  });

  it('does not warn of the queues a node has just subscribed to, before its entry says so', async () => {
    const logs = captureLogs('pretty');
    const { node } = await worker({ logger: logs.logger });
    // Its process entry, written at its first beat, does not list these yet.
    const queues = Array.from({ length: 20 }, (_, i) => `fresh-${i}`);
    for (const queue of queues) await node.subscribe(queue, 2);
    await node.enqueueAll(queues.map((queue) => ({ queue, class: 'Record', args: [] })));
    await node.enqueue('nowhere-like-it', 'Record', []);
    // Judged in order: once the last one is said, the others were judged before it.
    await waitFor(() => logs.text().includes('no live node serves queue "nowhere-like-it"'), 5000);
    expect(logs.text()).not.to.match(/no live node serves queue "fresh-/);
  });

  it('takes a process without a classes field (a Sidekiq) to run any class of its queues', async () => {
    const logs = captureLogs('pretty');
    await t.redis.sadd(t.keys.processes, 'sidekiq-host:1:abc');
    await t.redis.hset(t.keys.process('sidekiq-host:1:abc'), 'info', JSON.stringify({ queues: ['default'] }));
    const producer = await t.start({ mode: 'enqueuer', logger: logs.logger });
    await producer.enqueue('default', 'Ruby::Only', []);
    await producer.enqueue('elsewhere', 'Ruby::Only', []);
    await waitFor(() => logs.text().includes('no live node'), 5000);
    expect(logs.text()).to.include('no live node serves queue "elsewhere"');
    expect(logs.text()).not.to.include('Ruby::Only');
  });

  it('nexq enqueue says it on stderr (and in --json), and enqueues the job', async () => {
    await worker();
    const result = await cli(['enqueue', 'default', 'Recrod', '[]']);
    expect(result.status).to.equal(0);
    expect(result.stdout.trim()).to.match(/^[0-9a-f-]{36}$/);
    expect(result.stderr).to.equal(
      'nexq: warning: no live node has a handler for class "Recrod" (of those serving queue "default"): ' +
        'its jobs fail and are retried; did you mean "Record"?\n',
    );
    const json = JSON.parse((await cli(['enqueue', 'defualt', 'Record', '--json'])).stdout);
    expect(json.warnings).to.deep.equal([
      'no live node serves queue "defualt": its jobs wait until one does; did you mean "default"?',
    ]);
    expect(await t.redis.llen(t.keys.queue('defualt'))).to.equal(1);
  });
});
