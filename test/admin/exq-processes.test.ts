// Exq's process entries as nexq reads them, and nexq's entry as Exq's API reads it (issue #31,
// 6b and 6c). The Exq entries are written as Exq 0.23's JobStat.node_ping writes them: the identity
// (the bare host name) in <ns>:processes, and <ns>:<identity> with info (Exq.Support.Node as JSON),
// busy, beat and quiet, expiring 60 s after the last ping; a stopped Exq leaves its member behind.
import { expect } from 'chai';
import os from 'node:os';
import { readProcesses } from '../../src/admin/processes';
import { readStats } from '../../src/admin/stats';
import { fixture } from '../support/paths';
import { useNodes, waitFor } from '../support/node';

describe('processes in a fleet with Exq nodes', () => {
  const t = useNodes();

  async function exqPing(identity: string, busy: number): Promise<void> {
    const info = {
      hostname: identity,
      identity,
      started_at: 1_700_000_000,
      pid: '4242',
      queues: ['default'],
      labels: [],
      tag: '',
      busy,
      concurrency: 0,
      quiet: false,
    };
    const key = t.keys.process(identity);
    await t.redis
      .multi()
      .sadd(t.keys.processes, identity)
      .hset(key, 'info', JSON.stringify(info), 'busy', busy, 'beat', Math.floor(Date.now() / 1000), 'quiet', 'false')
      .expire(key, 60)
      .exec();
  }

  it("lists a live Exq node with its pid and host, and neither lists nor counts a stopped one's leftover member", async () => {
    const node = await t.start();
    await exqPing('exq-live-host', 2);
    // A stopped Exq: its entry expired, its member stays in the set.
    await t.redis.sadd(t.keys.processes, 'exq-stopped-host');

    const views = await readProcesses(node.node.ctx);
    expect(views.map((v) => v.identity)).to.not.include('exq-stopped-host');
    const exq = views.find((v) => v.identity === 'exq-live-host');
    expect(exq).to.include({ hostname: 'exq-live-host', pid: 4242, busy: 2, quiet: false, concurrency: null });
    expect(exq!.queues).to.deep.equal(['default']);
    expect(views).to.have.length(2);
    expect((await readStats(node.node.ctx)).processes).to.equal(2);
  });

  it("writes busy and quiet into its info, where Exq's API reads a node's", async () => {
    const node = await t.start({ jobs: { Sleep: fixture('Sleep.js') }, heartbeatInterval: 1 });
    await node.enqueue('default', 'Sleep', [3000]);
    const identity = node.node.ctx.identity;
    const running = await waitFor(
      async () => {
        const text = await t.redis.hget(t.keys.process(identity), 'info');
        const info = text ? JSON.parse(text) : undefined;
        return info?.busy === 1 && info;
      },
      5000,
      'info with one busy job',
    );
    expect(running).to.include({ quiet: false, identity, hostname: os.hostname() });
    // Exq's API lists a node's running jobs from <identity>:workers as Exq.Support.Process.
    const [work] = Object.values(await t.redis.hgetall(t.keys.processWorkers(identity))).map((v) => JSON.parse(v));
    expect(work).to.include({ host: identity, pid: String(process.pid), queue: 'default' });
    expect(JSON.parse(work.payload)).to.include({ class: 'Sleep', queue: 'default' });
    expect(work.run_at).to.be.a('number');
    node.node.ctx.lifecycle.goQuiet();
    await waitFor(
      async () => JSON.parse((await t.redis.hget(t.keys.process(identity), 'info'))!).quiet === true,
      5000,
      'info saying quiet',
    );
  });
});
