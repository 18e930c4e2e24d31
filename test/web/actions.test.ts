// The dashboard's operator actions over HTTP (kill, clear a queue, quiet, stop, cancel), each
// behind the CSRF header like the others, and the processes' live busy counts, memory, version and
// supervision trees.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { addToSet, call, startWebNode } from './support';

const post = (url: string, p: string, body: unknown = {}) => call(url, p, { method: 'POST', action: true, body });

describe('web dashboard actions over HTTP', () => {
  const t = useNodes();

  it('refuses every new action without the X-Nexq header, and changes nothing', async () => {
    const { nexq, url } = await startWebNode(t);
    const retry = await addToSet(t, 'retry', 'default', 'Fail', [], Date.now() / 1000 + 3600);
    await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 1]);
    const identity = nexq.node.ctx.identity;
    for (const p of [
      '/api/sets/retry/kill',
      '/api/queues/parked/clear',
      `/api/processes/${identity}/quiet`,
      `/api/processes/${identity}/stop`,
      `/api/jobs/${retry}/cancel`,
    ]) {
      const forged = await call(url, p, { method: 'POST', body: { jids: [retry] } });
      expect(forged.status, p).to.equal(403);
      expect((await call(url, p)).status, `GET ${p}`).to.equal(405);
    }
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(1);
    expect(await t.redis.llen(t.keys.processSignals(identity))).to.equal(0);
  });

  it('kills retries: one by jid, then all, into the dead set where the index finds them', async () => {
    const { url } = await startWebNode(t);
    const later = Date.now() / 1000 + 3600;
    const [a, b, c] = [
      await addToSet(t, 'retry', 'default', 'Fail', ['a'], later),
      await addToSet(t, 'retry', 'default', 'Fail', ['b'], later + 1),
      await addToSet(t, 'retry', 'default', 'Fail', ['c'], later + 2),
    ];
    const one = await post(url, '/api/sets/retry/kill', { jids: [a, 'no-such-jid'] });
    expect(one.body.results).to.deep.equal([
      { jid: a, killed: true },
      { jid: 'no-such-jid', killed: false, error: 'no job no-such-jid in the retry set' },
    ]);
    expect((await call(url, `/api/jobs/${a}`)).body.found.map((f: any) => f.where)).to.deep.equal(['dead']);
    const dead = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    expect(dead.map((raw) => JSON.parse(raw))[0]).to.include({ jid: a, error_class: 'BoomError' });
    expect((await post(url, '/api/sets/retry/kill', { all: true })).body).to.deep.equal({ set: 'retry', killed: 2 });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(3);
    for (const jid of [b, c]) expect((await call(url, `/api/jobs/${jid}`)).body.found[0].where).to.equal('dead');
    expect((await post(url, '/api/sets/dead/kill', { all: true })).status).to.equal(404);
  });

  it('clears a queue: its jobs and their index entries are gone, other queues keep theirs', async () => {
    const { nexq, url } = await startWebNode(t);
    const jids = [];
    for (let i = 0; i < 3; i++) jids.push(await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), i]));
    const other = await nexq.enqueue('held', 'Record', [t.url, t.out('never'), 'x']);
    expect((await post(url, '/api/queues/parked/clear')).body).to.deep.equal({ queue: 'parked', deleted: 3 });
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(0);
    for (const jid of jids) expect((await call(url, `/api/jobs/${jid}`)).status).to.equal(404);
    expect((await call(url, `/api/jobs/${other}`)).body.found[0].where).to.equal('queue');
    expect((await post(url, '/api/queues/parked/clear')).body.deleted).to.equal(0);
  });

  it('offers kill and clear on the public API too', async () => {
    const nexq = await t.start();
    const jid = await addToSet(t, 'retry', 'default', 'Fail', [], Date.now() / 1000 + 3600);
    expect(await nexq.killJob(jid)).to.equal(true);
    expect(await nexq.killJob(jid)).to.equal(false);
    expect((await nexq.show(jid))?.state).to.equal('dead');
    await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 1]);
    expect(await nexq.clearQueue('parked')).to.equal(1);
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(0);
  });

  it('quiets, then stops, another node through its signals', async () => {
    const { url } = await startWebNode(t);
    const other = await t.start({ heartbeatInterval: 1, nodeTimeout: 5 });
    const identity = other.node.ctx.identity;
    expect((await post(url, '/api/processes/nobody:1:abc/quiet')).status).to.equal(404);
    expect((await post(url, `/api/processes/${encodeURIComponent(identity)}/quiet`)).body).to.deep.equal({
      identity,
      sent: 'TSTP',
    });
    await waitFor(async () => {
      const processes = (await call(url, '/api/processes')).body;
      return processes.find((p: any) => p.identity === identity)?.quiet;
    }, 10_000);
    expect(other.node.running).to.equal(true);
    expect((await post(url, `/api/processes/${encodeURIComponent(identity)}/stop`)).status).to.equal(200);
    // The entry goes as the node leaves Redis, after its tree has stopped (src/node/leave-redis.ts).
    await other.node.stopped;
    expect(await t.redis.sismember(t.keys.processes, identity)).to.equal(0);
  });

  it('cancels a running job: it goes to the dead set; a job not running is a 409', async () => {
    const { nexq, url } = await startWebNode(t);
    const jid = await nexq.enqueue('default', 'Gate', [t.url, t.out('gate')]);
    await waitFor(async () => (await nexq.show(jid))?.state === 'running');
    expect((await post(url, `/api/jobs/${jid}/cancel`)).body).to.deep.equal({ jid, cancelled: true });
    const [dead] = (await t.redis.zrange(t.keys.dead('default'), 0, -1)).map((raw) => JSON.parse(raw));
    expect(dead).to.include({ jid, error_class: 'JobCancelledError' });
    const waiting = await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 1]);
    const refused = await post(url, `/api/jobs/${waiting}/cancel`);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal(`job ${waiting} is not running (it may have finished)`);
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(1);
  });

  it('shows live busy counts, memory, threads, version and the supervision tree of each node', async () => {
    // One beat at start, the next a minute later: a busy count seen before then was written as the jobs started.
    const { nexq, url } = await startWebNode(t, { heartbeatInterval: 60, nodeTimeout: 120 });
    const version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
    for (let i = 0; i < 3; i++) await nexq.enqueue('default', 'Gate', [t.url, t.out(`gate${i}`)]);
    const [p] = await waitFor(async () => {
      const processes = (await call(url, '/api/processes')).body;
      return processes[0]?.busy === 3 && processes[0].jobs.length === 3 && processes;
    }, 10_000);
    expect(p).to.include({ identity: nexq.node.ctx.identity, threads: 2, version });
    expect(p.rss_kb).to.be.greaterThan(1000);
    expect(Date.parse(p.started_at)).to.be.closeTo(nexq.node.ctx.startedAt * 1000, 1000);
    expect((await call(url, '/api/stats')).body.busy).to.equal(3);
    for (let i = 0; i < 3; i++) await t.redis.rpush(t.out(`gate${i}`), 'go');
    await waitFor(async () => (await call(url, '/api/processes')).body[0].busy === 0, 10_000);
    const tree = (await call(url, '/api/processes')).body[0].tree;
    expect(tree).to.include({ id: 'nexq.root', state: 'running', strategy: 'rest_for_one' });
    const ids = tree.children.map((c: any) => c.id);
    expect(ids).to.include.members(['redis', 'heartbeat', 'job-runners', 'manager', 'canceller']);
    expect(tree.children.find((c: any) => c.id === 'redis').children[0]).to.include({
      id: 'redis-connection',
      state: 'running',
      restarts: 0,
    });
    expect(tree.children.find((c: any) => c.id === 'job-runners')).to.include({ strategy: 'dynamic', running: 0 });
  });

  it("counts an actor's restarts in its node's tree, with why it last exited", async () => {
    const { nexq, url } = await startWebNode(t, { heartbeatInterval: 1, nodeTimeout: 5 });
    nexq.node.ctx.registry
      .lookup<{ alive: boolean; kill(reason: unknown): void }>('canceller')
      .kill(new Error('test crash'));
    const canceller = await waitFor(async () => {
      const [p] = (await call(url, '/api/processes')).body;
      const child = p?.tree?.children.find((c: any) => c.id === 'canceller');
      return child?.restarts === 1 && child.state === 'running' && child;
    }, 10_000);
    expect(canceller.lastExit).to.equal('Error: test crash');
    expect(Date.parse(new Date(canceller.lastRestart).toISOString())).to.be.closeTo(Date.now(), 10_000);
  });
});
