// A node serving one plain queue waits for its next job with its fetch sent ahead, behind a
// blocking BLMOVE on a connection of its own (src/fetch/waiting-fetch.ts): a job pushed by anyone
// reaches the node in Redis' reply to the push, no wake signal needed. Quiet, unsubscribe and stop
// end the wait at once; what its fetch took then goes back to the queue, never lost nor started.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { captureLogs } from '../support/capture-logs';
import { DelayProxy } from '../support/delay-proxy';
import { sharedRedis } from '../support/global-hooks';
import { sleep, useNodes, waitFor } from '../support/node';
import { waitSeconds } from '../../src/fetch/waiting-fetch';

/** Long enough that neither the regular poll nor the idle poll runs during a test. */
const NO_POLLS = { pollTimeout: 60_000, idlePollInterval: 60_000 };

describe('waiting fetch', () => {
  const t = useNodes();
  const record = (n: number, queue = 'default'): [string, string, unknown[]] => [
    queue,
    'Record',
    [t.url, t.out('waiting'), n],
  ];

  /** The connections blocked in a BLMOVE (CLIENT LIST names the command, not its keys). */
  async function waits(): Promise<number> {
    const clients = (await t.redis.client('LIST')) as string;
    return clients.split('\n').filter((line) => / cmd=blmove( |$)/.test(line) && / flags=\w*b/.test(line)).length;
  }

  /** A job pushed now neither runs nor leaves its queue for node `nodeId`'s backup list. */
  async function pushedStaysQueued(jid: string, nodeId: string): Promise<void> {
    await pushRaw(jid, 1);
    await sleep(300);
    expect(await t.records(t.out('waiting'))).to.deep.equal([]);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.backup(nodeId, 'default'))).to.equal(0);
  }

  /** A Redis user allowed everything but `denied`, and the URL of the test's Redis as that user. */
  async function userWithout(denied: string): Promise<{ user: string; url: string }> {
    const user = `nexq-acl-${randomUUID().slice(0, 8)}`;
    const password = randomUUID();
    await t.redis.acl('SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', denied);
    const url = new URL(t.url);
    url.username = user;
    url.password = password;
    return { user, url: url.toString() };
  }

  const waiting = (count = 1) => waitFor(async () => (await waits()) === count, 5000, `${count} waiting fetch(es)`);

  /** A Sidekiq-shaped job pushed straight into the queue, as a foreign producer does: no wake signal. */
  async function pushRaw(jid: string, value: unknown, queue = 'default'): Promise<void> {
    const job = { class: 'Record', args: [t.url, t.out('waiting'), value], jid, queue, retry: true };
    await t.redis.lpush(t.keys.queue(queue), JSON.stringify({ ...job, enqueued_at: Date.now() / 1000 }));
  }

  it('waits on its one idle queue with a blocking fetch, which takes each job pushed, once', async () => {
    const node = await t.start(NO_POLLS);
    await waiting();
    for (let n = 1; n <= 3; n++) {
      await pushRaw(`w${n}`, n);
      await t.waitForRecords(t.out('waiting'), n);
      await waiting();
    }
    expect((await t.records(t.out('waiting'))).map((r) => r.value)).to.deep.equal([1, 2, 3]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0,
      5000,
      'an empty backup list',
    );
  });

  it('does not wait so on a node serving two queues', async () => {
    const node = await t.start({ ...NO_POLLS, queues: ['a', 'b'] });
    await node.enqueue(...record(1, 'b'));
    await t.waitForRecords(t.out('waiting'), 1);
    expect(await waits()).to.equal(0);
  });

  it('ends the wait when a second queue is subscribed, and serves both', async () => {
    const node = await t.start(NO_POLLS);
    await waiting();
    await node.subscribe('other', 2);
    await waiting(0);
    await node.enqueue(...record(1, 'other'));
    await node.enqueue(...record(2));
    const ran = await t.waitForRecords(t.out('waiting'), 2);
    expect(ran.map((r) => r.value).sort()).to.deep.equal([1, 2]);
  });

  it('ends the wait when the node goes quiet: a job pushed after stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    const { ctx } = node.node;
    await waiting();
    ctx.lifecycle.goQuiet();
    await waiting(0);
    await pushedStaysQueued('q1', ctx.config.nodeId);
  });

  it('ends the wait when the queue is left: a job pushed after stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    await waiting();
    await node.unsubscribe('default');
    await waiting(0);
    await pushedStaysQueued('u1', node.node.ctx.config.nodeId);
  });

  it('stops with jobs pushed all along: each one ran or waits in its queue, none left in the backup list', async () => {
    const node = await t.start({ ...NO_POLLS, queues: [{ name: 'default', concurrency: 2 }] });
    const { nodeId } = node.node.ctx.config;
    await waiting();
    let pushed = 0;
    const producing = { on: true };
    const producer = (async () => {
      while (producing.on) {
        await pushRaw(`s${pushed}`, pushed);
        pushed++;
        await sleep(2);
      }
    })();
    await sleep(200);
    await node.stop();
    producing.on = false;
    await producer;
    const ran = (await t.records(t.out('waiting'))).map((r) => r.value as number);
    const queued = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map(
      (raw) => JSON.parse(raw).args[2] as number,
    );
    expect(await t.redis.llen(t.keys.backup(nodeId, 'default'))).to.equal(0);
    expect(await waits()).to.equal(0);
    expect(new Set(ran).size, 'each ran once').to.equal(ran.length);
    expect([...ran, ...queued].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: pushed }, (_, i) => i));
  });

  it('falls back to wake signals where Redis refuses BLMOVE (an ACL), with one warning', async () => {
    const { user, url } = await userWithout('-blmove');
    const logs = captureLogs();
    try {
      const node = await t.start({ ...NO_POLLS, redis: url, logger: logs.logger });
      await waitFor(() => /refused BLMOVE/.test(logs.text()), 5000, 'the warning');
      for (let n = 1; n <= 3; n++) {
        await node.enqueue(...record(n));
        await t.waitForRecords(t.out('waiting'), n);
      }
      expect(logs.text().match(/refused BLMOVE/g)).to.have.length(1);
      expect(await waits()).to.equal(0);
      await node.stop();
    } finally {
      await t.redis.acl('DELUSER', user);
    }
  });

  it('serves its queue by signals while its waiting connection cannot connect, and waits once it can', async () => {
    const proxy = await DelayProxy.start(sharedRedis().port);
    try {
      // The node's main connection and its two subscribers connect; what comes after is refused.
      proxy.refuseFrom = 4;
      const node = await t.start({ ...NO_POLLS, redis: proxy.url });
      await waitFor(() => proxy.connections >= 4, 5000, 'a refused connection');
      await node.enqueue(...record(1));
      await t.waitForRecords(t.out('waiting'), 1);
      expect(await waits()).to.equal(0);
      proxy.refuseFrom = Infinity;
      // A refused connection is opened again a second later, then connects and reads its client id:
      // a deadline longer than the others', for a loaded machine (5 s once ran out in CI).
      await waitFor(async () => (await waits()) === 1, 15_000, 'the waiting fetch once its connection opens');
      await pushRaw('r2', 2);
      await t.waitForRecords(t.out('waiting'), 2);
      await node.stop();
    } finally {
      await proxy.stop();
    }
  });

  it('turns itself off where Redis refuses CLIENT UNBLOCK, with one warning, and a quiet node still starts nothing', async () => {
    const { user, url } = await userWithout('-client|unblock');
    const logs = captureLogs();
    try {
      const node = await t.start({ ...NO_POLLS, redis: url, logger: logs.logger });
      const { ctx } = node.node;
      await waiting();
      ctx.lifecycle.goQuiet();
      await waitFor(() => /refused CLIENT UNBLOCK/.test(logs.text()), 5000, 'the warning');
      // The wait ends by itself (half a heartbeat interval at most); what it takes then goes back.
      await waiting(0);
      await pushedStaysQueued('n1', ctx.config.nodeId);
      expect(logs.text().match(/refused CLIENT UNBLOCK/g)).to.have.length(1);
      await node.stop();
    } finally {
      await t.redis.acl('DELUSER', user);
    }
  });

  it('turns itself off where Redis refuses CLIENT ID, with one warning, opening no more connections', async () => {
    const { user, url } = await userWithout('-client|id');
    const proxy = await DelayProxy.start(sharedRedis().port);
    const logs = captureLogs();
    try {
      const viaProxy = new URL(url);
      viaProxy.port = String(proxy.port);
      const node = await t.start({ ...NO_POLLS, redis: viaProxy.toString(), logger: logs.logger });
      await waitFor(() => /refused CLIENT ID/.test(logs.text()), 5000, 'the warning');
      const connected = proxy.connections;
      for (let n = 1; n <= 3; n++) {
        await node.enqueue(...record(n));
        await t.waitForRecords(t.out('waiting'), n);
      }
      await sleep(1500); // past a reopen, were there one
      expect(proxy.connections, "the node's connections opened since").to.equal(connected);
      expect(logs.text().match(/refused CLIENT ID/g)).to.have.length(1);
      await node.stop();
    } finally {
      await proxy.stop();
      await t.redis.acl('DELUSER', user);
    }
  });

  it('blocks at most 5 s, half a heartbeat interval, and half what a claim outlives the last beat', () => {
    expect(waitSeconds(30, 5)).to.equal(2.5);
    expect(waitSeconds(60, 20)).to.equal(5);
    expect(waitSeconds(3, 2)).to.equal(0.5);
  });
});
