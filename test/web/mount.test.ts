// The dashboard mounted in users' own servers under a path prefix, without a node: Express, Node's
// http and Fastify, each a real server of that framework with its own auth in front. Every mount
// serves the page and its assets under the prefix, reads and acts on Redis, keeps the CSRF rule,
// and leaves the app's other routes alone. One Chromium check loads the page under a prefix.
import { expect } from 'chai';
import express from 'express';
import Fastify from 'fastify';
import http from 'node:http';
import { nexqDashboard, nexqFastify } from '../../src';
import { useBrowser } from '../support/browser';
import { NodeTest, useNodes } from '../support/node';
import { addToSet, call, useAppServers } from './support';

const TOKEN = { 'X-App-Token': 'secret' };

function options(t: NodeTest) {
  return { redis: t.url, namespace: t.ns, keyLayout: t.keys.layout };
}

/** What every mount must do at `base` + `prefix`, with the app's token. */
async function exercise(t: NodeTest, base: string, prefix: string): Promise<void> {
  const jid = await addToSet(t, 'dead', 'default', 'Fail', []);
  const headers = TOKEN;
  expect((await call(base, `${prefix}/api/stats`)).status, "the app's auth runs first").to.equal(401);
  const bare = await fetch(`${base}${prefix}`, { headers, redirect: 'manual' });
  expect(bare.status).to.equal(308);
  expect(bare.headers.get('location')).to.equal(`${prefix}/`);
  const page = await call(base, `${prefix}/`, { headers });
  expect(page.status).to.equal(200);
  expect(page.text).to.include('src="./app.js"');
  const script = await call(base, `${prefix}/app.js`, { headers });
  expect(script.status).to.equal(200);
  expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
  const dead = await call(base, `${prefix}/api/sets/dead`, { headers });
  expect(dead.status).to.equal(200);
  expect(dead.body.size).to.equal(1);
  expect(dead.body.jobs[0].jid).to.equal(jid);
  const body = { jids: [jid] };
  const refused = await call(base, `${prefix}/api/sets/dead/retry`, { method: 'POST', body, headers });
  expect(refused.status, 'an action without X-Nexq').to.equal(403);
  const retried = await call(base, `${prefix}/api/sets/dead/retry`, { method: 'POST', body, headers, action: true });
  expect(retried.status).to.equal(200);
  expect(retried.body.results[0]).to.include({ jid, from: 'dead', queue: 'default' });
  expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
  expect(await t.redis.zcard(t.keys.jobSet('dead', 'default'))).to.equal(0);
  const other = await call(base, '/elsewhere', { headers });
  expect(other.text, "the app's own route").to.equal('app');
}

describe('web dashboard mounted in an app', () => {
  const t = useNodes();
  const apps = useAppServers();

  /** Refuses a request without the app's token, as an app's own auth would. */
  const authorized = (req: http.IncomingMessage) => req.headers['x-app-token'] === 'secret';

  it('Express: app.use(prefix, nexqDashboard(...)) behind the app auth and body parser', async () => {
    const app = express();
    app.use((req, res, next) => (authorized(req) ? next() : res.status(401).send('no')));
    app.use(express.json()); // an action's body, already parsed, is taken as it is
    app.use('/admin/jobs', apps.keep(nexqDashboard(options(t))));
    app.get('/elsewhere', (_req, res) => res.send('app'));
    await exercise(t, await apps.serve(app), '/admin/jobs');
  });

  it('without a redis option, reads REDIS_URL and NEXQ_* as Nexq.start() does', async () => {
    const environment = { REDIS_URL: t.url, NEXQ_NAMESPACE: t.ns, NEXQ_KEY_LAYOUT: t.keys.layout };
    const app = express();
    app.use((req, res, next) => (authorized(req) ? next() : res.status(401).send('no')));
    app.use(express.json());
    app.use('/jobs', apps.keep(nexqDashboard({ environment })));
    app.get('/elsewhere', (_req, res) => res.send('app'));
    await exercise(t, await apps.serve(app), '/jobs');
  });

  it("Node's http: a (req, res, next) handler with mountPath, serving the cluster-wide gauges", async () => {
    const mounted = apps.keep(nexqDashboard({ ...options(t), mountPath: '/jobs', metrics: true }));
    const base = await apps.serve((req, res) => {
      if (!authorized(req)) return void res.writeHead(401).end('no');
      mounted(req, res, () => res.end('app'));
    });
    await exercise(t, base, '/jobs');
    // The retried job waits in default: one scrape target for the fleet's backlog, no node label.
    const metrics = await call(base, '/jobs/metrics', { headers: TOKEN });
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.match(/^nexq_queue_size\{queue="default"\} 1$/m);
    expect(metrics.text).to.match(/^nexq_dead_set_size 0$/m);
    expect(metrics.text).to.match(/^nexq_redis_up 1$/m);
    expect(metrics.text).not.to.include('node=');
  });

  it('Fastify: register(nexqFastify(...), { prefix }), given an ioredis client to copy', async () => {
    const app = Fastify();
    app.addHook('onRequest', async (request, reply) => {
      if (!authorized(request.raw)) await reply.code(401).send('no');
    });
    await app.register(nexqFastify({ ...options(t), redis: t.redis }), { prefix: '/ops/jobs' });
    app.get('/elsewhere', () => Promise.resolve('app'));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await exercise(t, base, '/ops/jobs');
    } finally {
      await app.close();
    }
    expect(t.redis.status, "the app's client stays open").to.equal('ready');
  });
});

describe('web dashboard mounted under a prefix, in Chromium', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();
  const apps = useAppServers();

  it('loads its assets and API under the prefix', async () => {
    await addToSet(t, 'dead', 'default', 'Fail', []);
    const app = express();
    app.use('/jobs', apps.keep(nexqDashboard(options(t))));
    await b.page.goto(`${await apps.serve(app)}/jobs`);
    await b.page.locator('#count-dead', { hasText: /^1$/ }).waitFor();
    expect(new URL(b.page.url()).pathname).to.equal('/jobs/');
  });
});
