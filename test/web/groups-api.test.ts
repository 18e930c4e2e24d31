// The dashboard's groups API over HTTP: a fair queue's groups a page at a time, most waiting first,
// with the limit holding each back and the jobs each started lately; pause and resume one group
// behind the CSRF header, any name a job may carry; every odd request a clear 4xx.
import { expect } from 'chai';
import { pauseGroup } from '../../src/admin/groups';
import { NotFairQueueError } from '../../src/errors';
import type { Route } from '../../src/web/api-params';
import { GROUP_ROUTES } from '../../src/web/groups-api';
import { LIST_ROUTES } from '../../src/web/list-routes';
import { useNodes, waitFor } from '../support/node';
import { call, startWebNode } from './support';

const post = (url: string, p: string, body: unknown = {}) => call(url, p, { method: 'POST', action: true, body });

describe("web dashboard: a fair queue's groups over HTTP", () => {
  const t = useNodes();
  const odd = 'b/../c %2F';
  const unicode = 'tenant-ü-😀';

  /** A node serving fair queue 'fair' (one slot, one job per group) with acme's first job running. */
  async function started() {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const sleep = (group: string) => ({ queue: 'fair', class: 'Sleep', args: [10_000], options: { group } });
    await enqueuer.enqueueAll([sleep('acme'), sleep('acme'), sleep('acme'), sleep(odd), sleep(odd), sleep(unicode)]);
    const web = await startWebNode(t, {
      queues: [
        { name: 'fair', concurrency: 1, fair: true, groupConcurrency: 1 },
        { name: 'plain', concurrency: 1 },
      ],
      shutdownTimeout: 50,
    });
    await waitFor(async () => (await web.nexq.groups('fair')).some((g) => g.running === 1), 5000, 'acme running');
    return web;
  }

  it('lists the groups most waiting first, a page at a time, with their limit and recent starts', async () => {
    const { url } = await started();
    const all = await call(url, '/api/queues/fair/groups');
    expect(all.status).to.equal(200);
    expect(all.body).to.deep.equal({
      queue: 'fair',
      limits: { groupConcurrency: 1, groupRateLimit: null },
      recentMinutes: 15,
      offset: 0,
      limit: 50,
      total: 3,
      groups: [
        { group: 'acme', waiting: 2, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
        { group: odd, waiting: 2, running: 0, paused: false, started15m: 0, limited: null },
        { group: unicode, waiting: 1, running: 0, paused: false, started15m: 0, limited: null },
      ],
    });
    const second = await call(url, '/api/queues/fair/groups?limit=1&offset=1');
    expect(second.body).to.include({ total: 3, offset: 1, limit: 1 });
    expect(second.body.groups.map((g: { group: string }) => g.group)).to.deep.equal([odd]);
    expect((await call(url, '/api/queues/fair/groups?offset=9')).body.groups).to.deep.equal([]);
  });

  it("judges by the live nodes' limits on a dashboard mounted in a producer, which serves no queue", async () => {
    const worker = await started();
    await waitFor(() => t.redis.hget(t.keys.process(worker.nexq.node.ctx.identity), 'info'), 5000, 'its entry');
    const { url } = await startWebNode(t, { mode: 'enqueuer' });
    const page = await call(url, '/api/queues/fair/groups?limit=1');
    expect(page.body.limits).to.deep.equal({ groupConcurrency: 1, groupRateLimit: null });
    expect(page.body.groups).to.deep.equal([
      { group: 'acme', waiting: 2, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
    ]);
  });

  it("reads a page without scanning the keyspace: the running counts are those of the page's groups", async () => {
    const { url } = await started();
    const scans = async () => Number(/cmdstat_scan:calls=(\d+)/.exec(await t.redis.info('commandstats'))?.[1] ?? 0);
    const before = await scans();
    const page = await call(url, '/api/queues/fair/groups?limit=1');
    expect(page.body.groups).to.deep.equal([
      { group: 'acme', waiting: 2, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
    ]);
    expect(await scans()).to.equal(before);
  });

  it("reads the live process entries once a request on a producer's dashboard, whose config says no limits", async () => {
    const worker = await started();
    await waitFor(() => t.redis.hget(t.keys.process(worker.nexq.node.ctx.identity), 'info'), 5000, 'its entry');
    const { ctx } = (await t.start({ mode: 'enqueuer' })).node;
    let reads = 0;
    const redis = new Proxy(ctx.redis, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name);
        if (name !== 'smembers') return typeof value === 'function' ? value.bind(target) : value;
        return (key: string) => ((reads += key === t.keys.processes ? 1 : 0), target.smembers(key));
      },
    });
    const counted = { ...ctx, redis };
    const read = async <T>(answer: () => Promise<T>) => ((reads = 0), [await answer(), reads] as const);
    const route = (routes: Route[], method: string, path: string, q: string, body?: unknown) =>
      routes.find((r) => r.method === method && r.path.test(path))!.handler(counted, [q], new URLSearchParams(), body);
    expect(
      await read(() => route(GROUP_ROUTES, 'POST', '/queues/fair/groups/pause', 'fair', { group: 'acme' })),
    ).to.deep.equal([{ queue: 'fair', group: 'acme', paused: true, changed: true }, 1]);
    expect(await read(() => pauseGroup(counted, 'fair', 'acme', false))).to.deep.equal([true, 1]);
    // Served by the worker, not fair, no groups: still refused.
    const refused = await read(() => pauseGroup(counted, 'plain', 'acme').catch((err: unknown) => err));
    expect(refused[0]).to.be.instanceOf(NotFairQueueError);
    expect(refused[1]).to.equal(1);
    // The queue's page: the warnings' serving view and its `fair`, from one read.
    const fairOf = (q: string) => read(async () => ((await route(LIST_ROUTES, 'GET', `/queues/${q}`, q)) as any).fair);
    expect(await fairOf('fair')).to.deep.equal([true, 1]);
    expect(await fairOf('plain')).to.deep.equal([false, 1]);
  });

  it('pauses and resumes one group, whatever its name, only with the CSRF header', async () => {
    const { url, nexq } = await started();
    const forged = await call(url, '/api/queues/fair/groups/pause', { method: 'POST', body: { group: odd } });
    expect(forged.status).to.equal(403);
    expect(await t.redis.smembers(t.keys.fair('fair').paused)).to.deep.equal([]);
    for (const group of [odd, unicode, '']) {
      const paused = await post(url, '/api/queues/fair/groups/pause', { group });
      expect(paused.body).to.deep.equal({ queue: 'fair', group, paused: true, changed: true });
    }
    expect((await post(url, '/api/queues/fair/groups/pause', { group: odd })).body.changed).to.equal(false);
    expect((await t.redis.smembers(t.keys.fair('fair').paused)).sort()).to.deep.equal(['', odd, unicode].sort());
    const listed = (await call(url, '/api/queues/fair/groups')).body.groups;
    expect(listed.map((g: { group: string; paused: boolean }) => [g.group, g.paused])).to.deep.equal([
      ['acme', false],
      [odd, true],
      [unicode, true],
      ['', true],
    ]);
    const resumed = await post(url, '/api/queues/fair/groups/resume', { group: odd });
    expect(resumed.body).to.deep.equal({ queue: 'fair', group: odd, paused: false, changed: true });
    expect(await nexq.groups('fair')).to.deep.include({
      group: odd,
      waiting: 2,
      running: 0,
      paused: false,
      started15m: 0,
      limited: null,
    });
  });

  it('answers every odd request with a clear 4xx and changes nothing', async () => {
    const { url } = await started();
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['GET', '/api/queues/nope/groups', undefined, 404, /queue nope is not a fair queue/],
      ['GET', '/api/queues/plain/groups', undefined, 404, /queue plain is not a fair queue/],
      ['GET', '/api/queues/a%2F..%2Fb/groups', undefined, 404, /queue a\/..\/b is not a fair queue/],
      ['GET', '/api/queues/fair/groups?limit=501', undefined, 400, /limit must be a whole number from 1 to 500/],
      ['GET', '/api/queues/fair/groups?limit=0', undefined, 400, /limit must be/],
      ['GET', '/api/queues/fair/groups?offset=-1', undefined, 400, /offset must be a whole number/],
      ['GET', '/api/queues/fair/groups?offset=1e3', undefined, 400, /offset must be a whole number/],
      ['POST', '/api/queues/nope/groups/pause', { group: 'a' }, 404, /not a fair queue/],
      ['POST', '/api/queues/fair/groups/pause', {}, 400, /body must be \{ "group": name \}/],
      ['POST', '/api/queues/fair/groups/pause', { group: 5 }, 400, /non-empty string/],
      ['POST', '/api/queues/fair/groups/pause', { group: 'x'.repeat(201) }, 400, /at most 200 characters/],
      ['POST', '/api/queues/fair/groups/pause', { group: 'a\u0000b' }, 400, /control characters/],
      ['POST', '/api/queues/fair/groups/resume', { group: '\ud800' }, 400, /well-formed Unicode/],
      ['GET', '/api/queues/fair/groups/pause', undefined, 405, /POST only/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const answer = await call(url, path, { method, body, action: method === 'POST' });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(status);
      expect(answer.body.error, path).to.match(message);
      expect(answer.text).to.not.match(/\.[jt]s:\d+|ERR |WRONGTYPE/);
    }
    expect(await t.redis.exists(t.keys.fair('fair').paused, t.keys.fair('nope').ring)).to.equal(0);
  });
});
