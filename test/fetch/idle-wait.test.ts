// An idle node blocks on its queue (src/redis/blocking-fetch.ts), with the fetch sent behind the
// wait so Redis takes the job the moment it arrives.
// The wait keeps every guarantee of the regular poll: a quiet node starts nothing, a queue left
// meanwhile is not served, and a wait whose connection is lost is replaced.
import { expect } from 'chai';
import { sleep, useNodes, waitFor } from '../support/node';
import { monitorOf } from '../support/monitor';

/** Long enough that no regular poll runs during a test: only the idle wait can take a job. */
const NO_POLLS = { pollTimeout: 60_000 };

describe('idle wait', () => {
  const t = useNodes();
  const record = (n: number): [string, string, unknown[]] => ['default', 'Record', [t.url, t.out('idle'), n]];

  /** The id of the connection blocked in BLMOVE on the default queue, once the node waits there. */
  async function waitingClient(): Promise<string> {
    return waitFor(
      async () => {
        const clients = (await t.redis.client('LIST')) as string;
        return clients
          .split('\n')
          .find((line) => / cmd=blmove( |$)/.test(line) && / flags=b /.test(line))
          ?.match(/^id=(\d+)/)?.[1];
      },
      5000,
      'a connection blocked in BLMOVE',
    );
  }

  it('takes each job enqueued into an idle queue, one at a time, each once, and leaves its backup list empty', async () => {
    const node = await t.start(NO_POLLS);
    for (let n = 1; n <= 5; n++) {
      await waitingClient();
      await node.enqueue(...record(n));
      await t.waitForRecords(t.out('idle'), n);
    }
    expect((await t.records(t.out('idle'))).map((r) => r.value)).to.deep.equal([1, 2, 3, 4, 5]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0,
      5000,
      'an empty backup list',
    );
  });

  it("has the job that wakes it fetched on the wait's own connection, sent behind the wait, not by a later poll", async () => {
    const node = await t.start(NO_POLLS);
    const backup = t.keys.backup(node.node.ctx.config.nodeId, 'default');
    const id = await waitingClient();
    const clients = (await t.redis.client('LIST')) as string;
    const waiterAddr = clients
      .split('\n')
      .find((line) => line.startsWith(`id=${id} `))!
      .match(/ addr=(\S+)/)![1];
    const monitor = await monitorOf(t.redis);
    const fetchesFrom: string[] = [];
    const queue = t.keys.queue('default');
    // A script call naming the queue and this node's backup list is a fetch (an enqueue names no
    // backup list, an ack no queue).
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (/^eval/i.test(args[0]) && args.includes(backup) && args.includes(queue)) fetchesFrom.push(source);
    });
    try {
      await sleep(100);
      await node.enqueue(...record(1));
      await t.waitForRecords(t.out('idle'), 1);
      await sleep(100);
    } finally {
      monitor.disconnect();
    }
    expect(fetchesFrom).to.deep.equal([waiterAddr]);
  });

  it('does not start a job that arrives after the node went quiet while it waited: it stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    const { ctx } = node.node;
    await waitingClient();
    // As TSTP does (the heartbeat sets it), at once, while the node waits in Redis.
    ctx.lifecycle.goQuiet();
    await node.enqueue(...record(1));
    await sleep(2500); // past the wait's own timeout, so a wait that was armed has answered
    expect(await t.records(t.out('idle'))).to.deep.equal([]);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.backup(ctx.config.nodeId, 'default'))).to.equal(0);
  });

  it('does not start a job that arrives after the node left the queue while it waited: it stays in its queue', async () => {
    const node = await t.start(NO_POLLS);
    await waitingClient();
    await node.unsubscribe('default');
    await node.enqueue(...record(1));
    await sleep(500);
    expect(await t.records(t.out('idle'))).to.deep.equal([]);
    expect(await t.redis.lrange(t.keys.queue('default'), 0, -1)).to.have.length(1);
    expect(await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))).to.equal(0);
  });

  it('waits again after its connection is killed, and runs the next job', async () => {
    const node = await t.start(NO_POLLS);
    await t.redis.client('KILL', 'ID', await waitingClient());
    await sleep(200);
    await waitingClient();
    await node.enqueue(...record(1));
    const [ran] = await t.waitForRecords(t.out('idle'), 1);
    expect(ran.value).to.equal(1);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0,
      5000,
      'an empty backup list',
    );
  });
});
