// nexq nodes recover dead Exq nodes' backup lists when no Exq node is alive (issue #31, 6d). The
// Exq side is written as Exq 0.23 writes it: Exq.Redis.Heartbeat.register scores `<ns>:heartbeats`
// with the node id and epoch seconds (ms / 1000), producers LPUSH into `<ns>:queue:<q>` and SADD
// `<ns>:queues`, the manager takes jobs with RPOPLPUSH into `<ns>:queue:backup::<node>::<q>`, and
// each running job is a field of `<ns>:<node>:workers`. No Exq runs here (no Elixir toolchain).
import { expect } from 'chai';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { recoverDeadExqNodes, recoverExqNode } from '../../src/redis/exq-recovery';
import { sleep, useNodes, waitFor } from '../support/node';

const FAST = { heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1, exqNodeTimeout: 30 };

describe('recovering dead Exq nodes', () => {
  const t = useNodes();

  beforeEach(function () {
    if (t.keys.perQueue) this.skip(); // Exq's keys exist in the shared layout only (see the last test)
  });

  const job = (queue: string, n: number) =>
    JSON.stringify({
      queue,
      retry: true,
      class: 'Record',
      args: [t.url, t.out('rec'), n],
      jid: `exq-${queue}-${n}`,
      enqueued_at: 1_700_000_000.5 + n,
    });

  /** One Exq beat of `nodeId`, `agoSeconds` ago by this machine's clock (the one Redis runs on here). */
  async function exqBeat(nodeId: string, agoSeconds: number): Promise<void> {
    await t.redis
      .multi()
      .zrem(t.keys.exqHeartbeats, nodeId)
      .zadd(t.keys.exqHeartbeats, String(Date.now() / 1000 - agoSeconds), nodeId)
      .exec();
  }

  /** An Exq producer enqueues `count` jobs on `queue`, and Exq node `nodeId` takes `taken` of them. */
  async function exqTakes(nodeId: string, queue: string, count: number, taken: number): Promise<string[]> {
    const jobs = Array.from({ length: count }, (_, i) => job(queue, i + 1));
    for (const raw of jobs) await t.redis.multi().sadd(t.keys.queues, queue).lpush(t.keys.queue(queue), raw).exec();
    for (let i = 0; i < taken; i++) {
      const raw = await t.redis.rpoplpush(t.keys.queue(queue), t.keys.backup(nodeId, queue));
      await t.redis.hset(t.keys.processWorkers(nodeId), `<0.${i}.0>`, JSON.stringify({ host: nodeId, payload: raw }));
    }
    return jobs;
  }

  it("puts a silent Exq node's jobs back at their queues' consumer end, in order, once, and drops its beat", async () => {
    await exqBeat('exq-dead', 120);
    const mail = await exqTakes('exq-dead', 'mail', 4, 3); // mail:4 waits, 1..3 were taken
    const reports = await exqTakes('exq-dead', 'reports', 2, 2);
    // A node that serves neither queue: what it puts back stays there to be looked at.
    await t.start({ ...FAST, queues: ['elsewhere'] });
    await waitFor(
      async () => (await t.redis.exists(t.keys.backup('exq-dead', 'mail'), t.keys.backup('exq-dead', 'reports'))) === 0,
      8000,
      'the backup lists to be emptied',
    );
    // Taken from the right end, put back on it: the order is the one the producer made.
    expect(await t.redis.lrange(t.keys.queue('mail'), 0, -1)).to.deep.equal([...mail].reverse());
    expect(await t.redis.lrange(t.keys.queue('reports'), 0, -1)).to.deep.equal([...reports].reverse());
    expect(await t.redis.zscore(t.keys.exqHeartbeats, 'exq-dead')).to.equal(null);
    expect(await t.redis.exists(t.keys.processWorkers('exq-dead'))).to.equal(0);
    // Once: the next rounds (and a direct call) find nothing more to do.
    await sleep(2500);
    expect(await recoverDeadExqNodes(defineScripts(t.redis), t.keys, 30)).to.deep.equal([]);
    expect(await t.redis.llen(t.keys.queue('mail'))).to.equal(4);
    expect(await t.redis.llen(t.keys.queue('reports'))).to.equal(2);
  });

  it("runs a dead Exq node's jobs on a nexq node serving their queue, each once", async () => {
    await exqBeat('exq-dead', 120);
    await exqTakes('exq-dead', 'default', 3, 3);
    await t.start(FAST);
    const records = await t.waitForRecords(t.out('rec'), 3, 8000);
    await sleep(1500); // a few more rounds: nothing runs twice
    expect((await t.records(t.out('rec'))).map((r) => r.value).sort()).to.deep.equal([1, 2, 3]);
    expect(records).to.have.length(3);
  });

  it("leaves a live Exq node's backup lists alone", async () => {
    await exqBeat('exq-live', 1);
    await exqTakes('exq-live', 'mail', 2, 2);
    await t.start({ ...FAST, queues: ['elsewhere'] });
    await sleep(2500); // more than two rounds
    expect(await t.redis.llen(t.keys.backup('exq-live', 'mail'))).to.equal(2);
    expect(await t.redis.zscore(t.keys.exqHeartbeats, 'exq-live')).not.to.equal(null);
    // Even when asked for it (a survivor that listed it dead just before it beat again).
    const result = await recoverExqNode(defineScripts(t.redis), t.keys, 'exq-live', 30);
    expect(result).to.deep.equal({ nodeId: 'exq-live', skipped: 'alive' });
    expect(await t.redis.llen(t.keys.backup('exq-live', 'mail'))).to.equal(2);
  });

  it('recovers no Exq node with exqNodeTimeout 0', async () => {
    await exqBeat('exq-dead', 120);
    await exqTakes('exq-dead', 'mail', 2, 2);
    await t.start({ ...FAST, exqNodeTimeout: 0, queues: ['elsewhere'] });
    await sleep(2500);
    expect(await t.redis.llen(t.keys.backup('exq-dead', 'mail'))).to.equal(2);
  });

  it("leaves a dead Exq node to a live Exq node's monitor", async () => {
    await exqBeat('exq-dead', 120);
    await exqBeat('exq-live', 1);
    await exqTakes('exq-dead', 'mail', 2, 2);
    await t.start({ ...FAST, queues: ['elsewhere'] });
    await sleep(2500);
    expect(await t.redis.llen(t.keys.backup('exq-dead', 'mail'))).to.equal(2);
    expect(await t.redis.zscore(t.keys.exqHeartbeats, 'exq-dead')).not.to.equal(null);
    // Even when asked for that one node: the check is the script's, atomic with the move.
    const result = await recoverExqNode(defineScripts(t.redis), t.keys, 'exq-dead', 30);
    expect(result).to.deep.equal({ nodeId: 'exq-dead', skipped: 'exq-alive' });
  });

  it('leaves an id that a nexq node beats under to nexq', async () => {
    await exqBeat('shared-id', 120);
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000), 'shared-id');
    await exqTakes('shared-id', 'mail', 1, 1);
    const result = await recoverExqNode(defineScripts(t.redis), t.keys, 'shared-id', 30);
    expect(result).to.deep.equal({ nodeId: 'shared-id', skipped: 'alive' });
    expect(await t.redis.llen(t.keys.backup('shared-id', 'mail'))).to.equal(1);
  });

  it('moves each job once between racing nexq survivors and an Exq monitor re-enqueueing the same node', async () => {
    await exqBeat('exq-dead', 120);
    const jobs = await exqTakes('exq-dead', 'mail', 6, 6);
    const redis = defineScripts(t.redis);
    const score = await t.redis.zscore(t.keys.exqHeartbeats, 'exq-dead');
    // Exq's monitor, as Exq.Redis.Heartbeat.re_enqueue_backup does it: while the node's beat still
    // has the score it read, move at most `limit` jobs from the backup list's head to the queue's
    // consumer end; it stops once a call moves none.
    const exqMonitorStep = (limit: number) =>
      t.redis.eval(
        `if not redis.call('ZSCORE', KEYS[3], ARGV[1]) or tonumber(redis.call('ZSCORE', KEYS[3], ARGV[1])) ~= tonumber(ARGV[2]) then return 0 end
         local moved = 0
         while moved < tonumber(ARGV[3]) and redis.call('LLEN', KEYS[1]) > 0 do
           redis.call('RPUSH', KEYS[2], redis.call('LPOP', KEYS[1])); moved = moved + 1
         end
         return moved`,
        3,
        t.keys.backup('exq-dead', 'mail'),
        t.keys.queue('mail'),
        t.keys.exqHeartbeats,
        'exq-dead',
        score!,
        limit,
      ) as Promise<number>;
    const first = await exqMonitorStep(2);
    const results = await Promise.all([
      recoverExqNode(redis, t.keys, 'exq-dead', 30),
      recoverExqNode(redis, t.keys, 'exq-dead', 30),
      exqMonitorStep(2),
      recoverExqNode(redis, t.keys, 'exq-dead', 30),
    ]);
    const after = await exqMonitorStep(2);
    const byNexq = results.filter((r): r is { nodeId: string; moved: number } => typeof r === 'object' && 'moved' in r);
    expect(byNexq).to.have.length(1);
    expect(first + results[2] + after + byNexq[0].moved).to.equal(6);
    const queued = await t.redis.lrange(t.keys.queue('mail'), 0, -1);
    expect([...queued].sort()).to.deep.equal([...jobs].sort());
    expect(await t.redis.exists(t.keys.backup('exq-dead', 'mail'))).to.equal(0);
  });
});

describe('recovering dead Exq nodes in the per-queue key layout', () => {
  const t = useNodes();

  it('does nothing: Exq cannot run on that layout', async () => {
    const keys = new Keys(t.ns, 'per-queue');
    await t.redis.zadd(keys.exqHeartbeats, String(Date.now() / 1000 - 120), 'exq-dead');
    await t.redis.lpush(`${t.ns}:queue:backup::exq-dead::mail`, 'job');
    expect(await recoverDeadExqNodes(defineScripts(t.redis), keys, 30)).to.deep.equal([]);
    expect(await t.redis.llen(`${t.ns}:queue:backup::exq-dead::mail`)).to.equal(1);
  });
});
