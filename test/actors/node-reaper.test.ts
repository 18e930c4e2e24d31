// Dead-node recovery, leaving the node list on stop, and reclaiming jobs a lost fetch reply stranded.
import { expect } from 'chai';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { recoverNode } from '../../src/redis/move-scripts';
import { useNodes, waitFor, sleep } from '../support/node';

const FAST = { heartbeatInterval: 1, nodeTimeout: 3, nodeCheckInterval: 1 };

describe('dead-node recovery', () => {
  const t = useNodes();
  const job = (n: number) =>
    JSON.stringify({ class: 'Record', args: [t.url, t.out('rec'), n], jid: `ghost-${n}`, queue: 'default' });

  async function plantNode(nodeId: string, beatAgoSeconds: number, jobs: string[]): Promise<void> {
    await t.redis.zadd(t.keys.nodes, String(Date.now() / 1000 - beatAgoSeconds), nodeId);
    await t.redis.hset(t.keys.nodeIdentities, nodeId, `${nodeId}-ident`);
    await t.redis.sadd(t.keys.processes, `${nodeId}-ident`);
    await t.redis.hset(t.keys.process(`${nodeId}-ident`), 'info', '{}');
    if (jobs.length) await t.redis.rpush(t.keys.backup(nodeId, 'default'), ...jobs);
  }

  it('re-enqueues the backup of a node that stopped beating and removes its entries', async () => {
    await plantNode('ghost', 60, [job(1), job(2)]);
    await t.start(FAST);
    const records = await t.waitForRecords(t.out('rec'), 2, 8000);
    expect(records.map((r) => r.value).sort()).to.deep.equal([1, 2]);
    expect(await t.redis.zscore(t.keys.nodes, 'ghost')).to.equal(null);
    expect(await t.redis.hget(t.keys.nodeIdentities, 'ghost')).to.equal(null);
    expect(await t.redis.sismember(t.keys.processes, 'ghost-ident')).to.equal(0);
    expect(await t.redis.exists(t.keys.process('ghost-ident'), t.keys.backup('ghost', 'default'))).to.equal(0);
  });

  it('leaves a node that beat recently alone', async () => {
    await plantNode('alive', 0, [job(1)]);
    await t.start(FAST);
    await sleep(2500); // more than two checks
    expect(await t.redis.llen(t.keys.backup('alive', 'default'))).to.equal(1);
    expect(await t.redis.zscore(t.keys.nodes, 'alive')).not.to.equal(null);
  });

  it('lets exactly one of two racing survivors recover a dead node, moving each job once', async () => {
    await plantNode('ghost', 60, [job(1), job(2), job(3)]);
    const keys: Keys = t.keys;
    const redis = defineScripts(t.redis);
    const claim = () =>
      recoverNode(redis, {
        nodes: keys.nodes,
        identities: keys.nodeIdentities,
        processes: keys.processes,
        queuesSet: keys.queues,
        processKey: keys.process('ghost-ident'),
        processWorkersKey: keys.processWorkers('ghost-ident'),
        nodeId: 'ghost',
        identity: 'ghost-ident',
        timeout: 30,
        backups: [
          {
            backup: keys.backup('ghost', 'default'),
            queue: keys.queue('default'),
            running: keys.running('default'),
            jobIndex: keys.jobIndex('default'),
            name: 'default',
          },
        ],
        runningKeys: [],
      });
    const results = await Promise.all([claim(), claim(), claim()]);
    expect(results.filter((r) => r >= 0)).to.deep.equal([3]);
    expect(results.filter((r) => r === -1)).to.have.length(2);
    expect((await t.redis.lrange(keys.queue('default'), 0, -1)).sort()).to.deep.equal([job(1), job(2), job(3)].sort());
  });

  it('a stopping node with a generated id puts its cut-off jobs back in their queue and leaves the node list', async () => {
    const node = await t.start({ ...FAST, shutdownTimeout: 100 });
    const nodeId = node.node.ctx.config.nodeId;
    expect(node.node.ctx.config.fixedNodeId).to.equal(false);
    await node.enqueue('default', 'Record', [t.url, t.out('cut'), 'slow', 3000]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup(nodeId, 'default'))) === 1,
      5000,
      'the job to be taken',
    );
    await t.stop(node);
    expect(await t.redis.llen(t.keys.backup(nodeId, 'default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    expect(await t.redis.zscore(t.keys.nodes, nodeId)).to.equal(null);
  });

  it('a stopping node with a fixed id keeps its cut-off jobs in backup and stays listed until it returns or ages out', async () => {
    const node = await t.start({ ...FAST, nodeId: 'fixed', shutdownTimeout: 100 });
    await node.enqueue('default', 'Record', [t.url, t.out('cut'), 'slow', 3000]);
    await waitFor(
      async () => (await t.redis.llen(t.keys.backup('fixed', 'default'))) === 1,
      5000,
      'the job to be taken',
    );
    await t.stop(node);
    expect(await t.redis.llen(t.keys.backup('fixed', 'default'))).to.equal(1);
    expect(await t.redis.zscore(t.keys.nodes, 'fixed')).not.to.equal(null);
    await t.start({ ...FAST, nodeId: 'other' });
    const [record] = await t.waitForRecords(t.out('cut'), 1, 15_000);
    expect(record.value).to.equal('slow');
  });

  it('a clean stop with nothing left leaves the node list at once', async () => {
    const node = await t.start({ ...FAST, nodeId: 'tidy' });
    await waitFor(() => t.redis.zscore(t.keys.nodes, 'tidy'), 5000, 'a first beat');
    await t.stop(node);
    expect(await t.redis.zscore(t.keys.nodes, 'tidy')).to.equal(null);
  });
});

describe('jobs stranded by a failed fetch', () => {
  const t = useNodes();

  it('puts backup entries no worker holds back in their queue once Redis answers again', async () => {
    // A batch of [unreadable, good]: burying the first fails while the dead set holds a string,
    // the poll fails, and the good job sits in the backup list with no worker.
    await t.redis.set(t.keys.dead('default'), 'not a sorted set');
    await t.start({ nodeId: 'n1', queues: [{ name: 'default', concurrency: 5 }] });
    const good = JSON.stringify({
      class: 'Record',
      args: [t.url, t.out('stranded'), 'good'],
      jid: 'good',
      queue: 'default',
    });
    await t.redis.lpush(t.keys.queue('default'), '{unreadable', good);
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0, 5000, 'a failing poll to take both');
    expect(await t.redis.llen(t.out('stranded'))).to.equal(0);
    await t.redis.del(t.keys.dead('default'));
    const [record] = await t.waitForRecords(t.out('stranded'), 1, 8000);
    expect(record.value).to.equal('good');
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 5000, 'the unreadable job buried');
    await waitFor(async () => (await t.redis.llen(t.keys.backup('n1', 'default'))) === 0, 5000, 'an empty backup list');
  });
});

describe('a queue whose keys Redis refuses', () => {
  const t = useNodes();

  it('leaves that queue alone, its jobs where they are, and serves the other queues', async () => {
    await t.redis.set(t.keys.backup('n2', 'a'), 'not a list');
    const a1 = JSON.stringify({ class: 'Record', args: [t.url, t.out('broken'), 'a1'], jid: 'a1', queue: 'a' });
    await t.redis.lpush(t.keys.queue('a'), a1);
    await t.start({ nodeId: 'n2', queues: ['a', 'b'] });
    await t.redis.lpush(
      t.keys.queue('b'),
      JSON.stringify({ class: 'Record', args: [t.url, t.out('broken'), 'b1'], jid: 'b1', queue: 'b' }),
    );
    const [record] = await t.waitForRecords(t.out('broken'), 1, 5000);
    expect(record.value).to.equal('b1');
    expect(await t.redis.lrange(t.keys.queue('a'), 0, -1)).to.deep.equal([a1]);
    await t.redis.del(t.keys.backup('n2', 'a'));
    const records = await t.waitForRecords(t.out('broken'), 2, 8000);
    expect(records.map((r) => r.value).sort()).to.deep.equal(['a1', 'b1']);
  });
});

describe('review fixes', () => {
  const t = useNodes();

  it('polls again after every queue was broken for a while', async () => {
    await t.redis.set(t.keys.backup('n3', 'solo'), 'not a list');
    await t.start({ nodeId: 'n3', queues: ['solo'] });
    await t.redis.lpush(
      t.keys.queue('solo'),
      JSON.stringify({ class: 'Record', args: [t.url, t.out('solo'), 1], jid: 's1', queue: 'solo' }),
    );
    await sleep(300);
    await t.redis.del(t.keys.backup('n3', 'solo'));
    await t.waitForRecords(t.out('solo'), 1, 8000);
  });

  it('gives a failed job without a queue field its queue, so its retry is not buried as unreadable', async () => {
    await t.start({ queues: ['q'] });
    await t.redis.lpush(t.keys.queue('q'), JSON.stringify({ class: 'Fail', args: [], jid: 'noq', retry: 3 }));
    const entry = await waitFor(
      async () => (await t.redis.zrange(t.keys.retry('q'), 0, -1))[0],
      5000,
      'the retry entry',
    );
    expect(JSON.parse(entry)).to.include({ queue: 'q', error_class: 'BoomError' });
  });

  it('releases the unique lock of an at-most-once job when it is done', async () => {
    const node = await t.start();
    await node.enqueue('default', 'Record', [t.url, t.out('amo-u'), 1], { atMostOnce: true, unique: { for: 60 } });
    await t.waitForRecords(t.out('amo-u'));
    await waitFor(async () => (await t.redis.keys(`${t.ns}:nexq:unique:*`)).length === 0, 5000, 'the lock released');
  });
});
