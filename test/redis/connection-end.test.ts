// A connection ioredis ends for good (status `end`: it never reconnects) is replaced: the actor that
// owns it crashes, says so once at warn, and its restart opens a fresh one; the node keeps running
// jobs. Each connection is forced into `end` the way ioredis' Sentinel failover detector does it
// (issue #25): its connector is disconnected while the client connects, so connect() fails and the
// client ends without a 'close'. (The Sentinel path itself: test/redis/sentinel.test.ts.)
import { expect } from 'chai';
import type Redis from 'ioredis';
import type { Nexq } from '../../src/nexq';
import { ActorNames } from '../../src/run/node-context';
import type { RedisClient } from '../../src/redis/client';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';

/** The warn lines that say a connection ended (JSON lines from captureLogs). */
function endedLines(text: string): string[] {
  return text.split('\n').filter((line) => line.includes('"level":"warn"') && line.includes('stopped reconnecting'));
}

/** The next connect of `client` fails as a +switch-master heard mid-connect makes it fail: it ends. */
function endOnNextConnect(client: RedisClient): void {
  client.once('connecting', () => (field(client, 'connector') as { disconnect(): void }).disconnect());
}

/** Cuts the socket: ioredis reconnects (and, after endOnNextConnect, ends). */
function dropSocket(client: RedisClient): void {
  (field(client, 'stream') as { destroy(): void }).destroy();
}

/** Reads a private field of an actor: the connections are internal, and nothing else can end them. */
function field(object: unknown, name: string): unknown {
  return (object as Record<string, unknown>)[name];
}

describe('a connection ioredis ended is replaced', function () {
  this.timeout(20_000);
  const t = useNodes();

  async function runsAJob(node: Nexq, name: string): Promise<void> {
    await node.enqueue('default', 'Record', [t.url, t.out(name), name]);
    await t.waitForRecords(t.out(name), 1, 10_000);
  }

  it('the main client: a fresh one takes over, a running job is settled on it, new jobs run', async () => {
    const logs = captureLogs();
    const node = await t.start({ logger: logs.logger });
    const ended = node.node.ctx.redis;
    const slow = await node.enqueue('default', 'Record', [t.url, t.out('slow'), 'slow', 500]);
    await waitFor(async () => (await node.show(slow))?.state === 'running', 5000, 'the slow job running');
    endOnNextConnect(ended);
    dropSocket(ended);
    await waitFor(() => node.node.ctx.redis !== ended, 5000, 'a fresh main client');
    const [record] = await t.waitForRecords(t.out('slow'), 1);
    expect(record.jid).to.equal(slow);
    await runsAJob(node, 'after');
    // The slow job ran once and was acked on the fresh client.
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))) === 0,
      5000,
      'the slow job acked',
    );
    expect(await t.redis.llen(t.out('slow'))).to.equal(1);
    const lines = endedLines(logs.text());
    expect(lines, logs.text()).to.have.length(1);
    expect(lines[0]).to.include('redis-connection exited: the main Redis connection ended');
    expect(node.node.running).to.equal(true);
  });

  it('the main client, while its queues are idle: the idle checks and key tracking move to the fresh one', async () => {
    const logs = captureLogs();
    // The idle poll is an hour apart: only tracking on the fresh client can start the foreign push.
    const node = await t.start({ logger: logs.logger, pollTimeout: 3_600_000, idlePollInterval: 3_600_000 });
    await runsAJob(node, 'before');
    const ended = node.node.ctx.redis;
    endOnNextConnect(ended);
    dropSocket(ended);
    await waitFor(() => node.node.ctx.redis !== ended, 5000, 'a fresh main client');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the queue idle, checked and armed again
    const job = { class: 'Record', args: [t.url, t.out('foreign'), 'foreign'], jid: 'f1', queue: 'default' };
    await t.redis.lpush(
      t.keys.queue('default'),
      JSON.stringify({ ...job, retry: true, enqueued_at: Date.now() / 1000 }),
    );
    const [ran] = await t.waitForRecords(t.out('foreign'), 1, 10_000);
    expect(ran.jid).to.equal('f1');
    await runsAJob(node, 'after');
    expect(logs.text()).to.not.include('fetch failed');
  });

  it('the wake subscriber: the manager restarts on a fresh connection, and a job pushed later wakes it', async () => {
    const logs = captureLogs();
    // Neither poll runs during the test: only a wake can start the job after the restart.
    const node = await t.start({ logger: logs.logger, pollTimeout: 60_000, idlePollInterval: 60_000 });
    const manager = node.node.ctx.registry.whereis(ActorNames.manager);
    const subscriber = field(field(field(manager, 'idle'), 'signals'), 'subscriber') as RedisClient;
    await waitFor(() => subscriber.status === 'ready', 5000, 'the wake subscriber connected');
    endOnNextConnect(subscriber);
    dropSocket(subscriber);
    await waitFor(() => node.node.ctx.registry.whereis(ActorNames.manager) !== manager, 5000, 'a new manager');
    await waitFor(
      async () => ((await t.redis.pubsub('NUMSUB', t.keys.wakeChannel)) as [string, number])[1] >= 1,
      5000,
      'the new manager subscribed',
    );
    await runsAJob(node, 'after');
    const lines = endedLines(logs.text());
    expect(lines, logs.text()).to.have.length(1);
    expect(lines[0]).to.include('manager exited: the wake subscriber connection ended');
  });

  it('the cancel subscriber: the canceller restarts on a fresh connection and cancels again', async () => {
    const logs = captureLogs();
    const node = await t.start({ logger: logs.logger });
    const canceller = node.node.ctx.registry.whereis(ActorNames.canceller);
    const subscriber = field(canceller, 'subscriber') as Redis;
    await waitFor(() => subscriber.status === 'ready', 5000, 'the subscriber connected');
    endOnNextConnect(subscriber);
    dropSocket(subscriber);
    await waitFor(() => node.node.ctx.registry.whereis(ActorNames.canceller) !== canceller, 5000, 'a new canceller');
    const jid = await node.enqueue('default', 'Spin', []);
    await waitFor(async () => (await node.show(jid))?.state === 'running', 5000, 'the job running');
    expect(await node.cancel(jid)).to.equal(true);
    await runsAJob(node, 'after');
    const lines = endedLines(logs.text());
    expect(lines, logs.text()).to.have.length(1);
    expect(lines[0]).to.include('canceller exited: the cancel subscriber connection ended');
  });

  it("a producer's client (mode: 'enqueuer'): enqueues go on through a fresh one", async () => {
    const logs = captureLogs();
    const producer = await t.start({ mode: 'enqueuer', logger: logs.logger });
    const node = await t.start();
    const ended = producer.node.ctx.redis;
    endOnNextConnect(ended);
    dropSocket(ended);
    await waitFor(() => producer.node.ctx.redis !== ended, 5000, 'a fresh producer client');
    await runsAJob(producer, 'after');
    expect(endedLines(logs.text()), logs.text()).to.have.length(1);
    expect(node.node.running && producer.node.running).to.equal(true);
  });
});
