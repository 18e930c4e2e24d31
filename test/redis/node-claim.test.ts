// The default node id: the lowest free `<host>-<n>` on this host, never a live process' id.
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import Redis from 'ioredis';
import { ClaimHolder, hostPart, NodeClaim, thisProcess } from '../../src/redis/node-claim';
import { defineScripts, ScriptedRedis } from '../../src/redis/scripts';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';

const TTL_MS = 30_000;

describe('the default node id', () => {
  const t = useNodes();
  let redis: ScriptedRedis;

  beforeEach(() => {
    redis = defineScripts(new Redis(t.url));
  });
  afterEach(() => redis.disconnect());

  const id = (n: number) => `${hostPart()}-${n}`;
  const take = (holder: ClaimHolder = thisProcess()) => NodeClaim.take(redis, t.keys, TTL_MS, holder);
  /** A claim as `holder` left it. */
  const leave = (n: number, holder: ClaimHolder) => redis.set(t.keys.nodeClaim(id(n)), JSON.stringify(holder));

  it('gives processes starting together different ids, the lowest free ones', async () => {
    const claims = await Promise.all(Array.from({ length: 6 }, () => take()));
    expect(claims.map(({ claim }) => claim.nodeId).sort()).to.deep.equal([1, 2, 3, 4, 5, 6].map(id).sort());
    expect(claims.every(({ tookOver }) => tookOver === undefined)).to.equal(true);
    // Given back, an id is the next start's again.
    await claims.find(({ claim }) => claim.nodeId === id(2))?.claim.release(redis);
    expect((await take()).claim.nodeId).to.equal(id(2));
  });

  it("never takes a live process' id: this one, or one in another pid namespace or on another machine", async () => {
    const here = thisProcess();
    await leave(1, { ...here, token: 'a live node of this process' });
    await leave(2, { ...here, pid: 1, pidns: 'pid:[1]', token: 'another container' });
    await leave(3, { ...here, pid: 99_999_999, boot: 'another-boot-id', token: 'another machine, same name' });
    await leave(4, { ...here, host: 'another-host', pid: 99_999_999, token: 'another host' });
    const { claim, tookOver } = await take(here);
    expect(claim.nodeId).to.equal(id(5));
    expect(tookOver).to.equal(undefined);
  });

  it('takes over at once the id of a process of this host that no longer runs, or whose pid is now another process', async () => {
    const here = thisProcess();
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    await leave(1, { ...here, pid: exited, start: '1', token: 'killed with -9' });
    const first = await take(here);
    expect(first.claim.nodeId).to.equal(id(1));
    expect(first.tookOver).to.include({ pid: exited, token: 'killed with -9' });
    // pid 1 in a restarted container, or a pid reused: alive, but started after the claim was made.
    await leave(2, { ...here, start: String(Number(here.start) - 1), token: 'an earlier start of this pid' });
    const second = await take(); // another start of this process (a record of its own)
    expect(second.claim.nodeId).to.equal(id(2));
    expect(second.tookOver).to.include({ token: 'an earlier start of this pid' });
  });

  it('renews its claim, lapses when not renewed, and a holder that lost it learns so', async () => {
    const { claim } = await NodeClaim.take(redis, t.keys, 300, thisProcess());
    expect(await claim.renew(redis)).to.equal(true);
    expect(await redis.pttl(t.keys.nodeClaim(claim.nodeId))).to.be.within(1, 300);
    await waitFor(async () => (await redis.exists(t.keys.nodeClaim(claim.nodeId))) === 0, 5000, 'the claim to lapse');
    const other = await take();
    expect(other.claim.nodeId).to.equal(claim.nodeId);
    expect(await claim.renew(redis)).to.equal(false);
    await claim.release(redis); // not its own any more: left to the holder
    expect(await other.claim.renew(redis)).to.equal(true);
  });

  it('is what a node started without nodeId takes; two such nodes of one process get two ids', async () => {
    const [a, b] = await Promise.all([t.start(), t.start()]);
    const ids = [a.node.ctx.config.nodeId, b.node.ctx.config.nodeId].sort();
    expect(ids).to.deep.equal([id(1), id(2)]);
    expect(await t.redis.exists(t.keys.nodeClaim(id(1)))).to.equal(1);
    await a.stop();
    expect(await t.redis.exists(t.keys.nodeClaim(a.node.ctx.config.nodeId))).to.equal(0);
  });

  it('is the id the start line names', async () => {
    const logs = captureLogs('pretty');
    const node = await t.start({ logger: logs.logger });
    expect(logs.text()).to.include(`node ${node.node.ctx.config.nodeId} started (`);
  });
});
