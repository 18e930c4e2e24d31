// The web dashboard over plain HTTP: where it binds, basic auth, the API, POST-only actions with
// the CSRF header, /metrics, and that every asset comes from the node itself.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { WebServer } from '../../src/web/server';
import { repoRoot, fixturesJobs } from '../support/paths';
import { useNodes, waitFor } from '../support/node';
import { addToSet, call, startWebNode } from './support';

describe('web dashboard over HTTP', () => {
  const t = useNodes();

  it('binds 127.0.0.1 by default and serves the page and every asset itself, none from elsewhere', async () => {
    const { nexq, url } = await startWebNode(t);
    expect(nexq.node.web!.boundAddress).to.equal('127.0.0.1');
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await call(url, '/');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    // Every script and stylesheet the page and its modules name is a path on this server.
    const names = new Set<string>();
    const queue = [page.text];
    while (queue.length > 0) {
      const text = queue.pop()!;
      for (const m of text.matchAll(/(?:src|href)="([^"#][^"]*)"|from '([^']+)'/g)) {
        const ref = m.at(1) ?? m[2]; // the group that did not match is undefined
        if (ref.startsWith('data:')) continue;
        expect(ref, `asset reference ${ref}`).to.match(/^\.?\/[\w.-]+$/);
        const name = ref.replace(/^\.?\//, '/');
        if (names.has(name)) continue;
        names.add(name);
        const asset = await call(url, name);
        expect(asset.status, name).to.equal(200);
        expect(asset.text, name).not.to.match(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
        queue.push(asset.text);
      }
    }
    expect([...names]).to.include.members(['/app.js', '/style.css', '/dom.js', '/graph.js', '/views.js', '/jobs.js']);
    expect((await call(url, '/nothing-here')).status).to.equal(404);
  });

  it('bound to loopback, refuses a Host that is not loopback (DNS rebinding)', async () => {
    const { url } = await startWebNode(t);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(new URL('/api/stats', url), { headers: { Host: host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject);
      });
    expect(await status('evil.example:80')).to.equal(403);
    expect(await status(`localhost:${new URL(url).port}`)).to.equal(200);
    expect(await status(`127.0.0.1:${new URL(url).port}`)).to.equal(200);
  });

  it('binds the host it is told', async () => {
    const { nexq } = await startWebNode(t, { web: { port: 0, host: '0.0.0.0' } });
    expect(nexq.node.web!.boundAddress).to.equal('0.0.0.0');
  });

  it('requires basic auth when configured, and never logs the password', async () => {
    let logged = '';
    const logger = winston.createLogger({
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write: (chunk, _, done) => {
              logged += String(chunk);
              done();
            },
          }),
        }),
      ],
    });
    const { url } = await startWebNode(t, { web: { port: 0, username: 'ops', password: 's3cret-pass' }, logger });
    for (const auth of [undefined, ['ops', 'wrong'], ['ops2', 's3cret-pass'], ['ops', '']] as Array<
      [string, string] | undefined
    >) {
      for (const p of ['/', '/app.js', '/api/stats']) {
        const answer = await call(url, p, { auth });
        expect(answer.status, `${p} with ${String(auth)}`).to.equal(401);
        expect(answer.headers.get('www-authenticate')).to.match(/^Basic realm="nexq"/);
      }
    }
    expect(
      (await call(url, '/api/sets/dead/delete', { method: 'POST', action: true, body: { all: true } })).status,
    ).to.equal(401);
    expect((await call(url, '/', { auth: ['ops', 's3cret-pass'] })).status).to.equal(200);
    expect((await call(url, '/api/stats', { auth: ['ops', 's3cret-pass'] })).body).to.include({ processed: 0 });
    expect(logged).to.include('web dashboard on');
    expect(logged).not.to.include('s3cret-pass');
  });

  it('answers the API: stats, history, queues, sets, processes and a job by jid', async () => {
    const { nexq, url } = await startWebNode(t, { heartbeatInterval: 1, nodeTimeout: 5 });
    await nexq.enqueue('default', 'Record', [t.url, t.out('ran'), 1]);
    await t.waitForRecords(t.out('ran'));
    const parked = await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 2]);
    const dead = await addToSet(t, 'dead', 'default', 'Fail', []);
    const stats = await waitFor(async () => {
      const s = (await call(url, '/api/stats')).body;
      return s.processed === 1 && s.processes === 1 && s.busy === 0 && s;
    });
    expect(stats).to.include({ processed: 1, failed: 0, enqueued: 1, dead: 1, retries: 0, scheduled: 0, busy: 0 });
    const history = (await call(url, '/api/history?days=7')).body;
    expect(history).to.have.length(7);
    expect(history[6]).to.deep.equal({ day: new Date().toISOString().slice(0, 10), processed: 1, failed: 0 });
    expect((await call(url, '/api/history?days=x')).status).to.equal(400);
    const queues = (await call(url, '/api/queues')).body;
    expect(queues.map((q: any) => [q.queue, q.size, q.paused])).to.deep.equal([
      ['default', 0, null],
      ['parked', 1, null],
    ]);
    const inQueue = (await call(url, '/api/queues/parked')).body;
    expect(inQueue.size).to.equal(1);
    expect(inQueue.jobs[0]).to.include({ jid: parked, class: 'Record', queue: 'parked' });
    const deadSet = (await call(url, '/api/sets/dead')).body;
    expect(deadSet.size).to.equal(1);
    expect(deadSet.jobs[0]).to.include({ jid: dead, class: 'Fail', error_class: 'BoomError', retry_count: 3 });
    expect((await call(url, '/api/sets/elsewhere')).status).to.equal(404);
    const processes = (await call(url, '/api/processes')).body;
    expect(processes).to.have.length(1);
    expect(processes[0].info.node_id).to.equal(nexq.node.ctx.config.nodeId);
    expect(processes[0].jobs).to.deep.equal([]);
    const job = (await call(url, `/api/jobs/${parked}`)).body;
    expect(job.found).to.have.length(1);
    expect(job.found[0]).to.include({ where: 'queue', queue: 'parked' });
    expect(job.found[0].job).to.include({ jid: parked, class: 'Record' });
    expect((await call(url, `/api/jobs/${dead}`)).body.found[0].where).to.equal('dead');
    const missing = await call(url, '/api/jobs/no-such-jid');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.include('no-such-jid');
  });

  it('acts only on POST with the X-Nexq header, so other sites cannot act through a browser', async () => {
    const { url } = await startWebNode(t);
    const jid = await addToSet(t, 'dead', 'parked', 'Record', [t.url, t.out('x'), 1]);
    const retry = `/api/sets/dead/retry`;
    const asGet = await call(url, retry);
    expect(asGet.status).to.equal(405);
    expect(asGet.headers.get('allow')).to.equal('POST');
    // What a cross-origin form can send: a POST without the custom header.
    const forged = await call(url, retry, {
      method: 'POST',
      body: { jids: [jid] },
      headers: { Origin: 'http://evil.example' },
    });
    expect(forged.status).to.equal(403);
    const foreignOrigin = await call(url, retry, {
      method: 'POST',
      action: true,
      body: { jids: [jid] },
      headers: { Origin: 'http://evil.example' },
    });
    expect(foreignOrigin.status).to.equal(403);
    const formPost = await fetch(new URL(retry, url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `jids=${jid}`,
    });
    expect(formPost.status).to.equal(403);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(1);
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(0);
    expect((await call(url, retry, { method: 'PUT', action: true, body: { jids: [jid] } })).status).to.equal(405);
    expect((await call(url, retry, { method: 'POST', action: true, body: { jids: 'nope' } })).status).to.equal(400);
    const done = await call(url, retry, { method: 'POST', action: true, body: { jids: [jid] } });
    expect(done.status).to.equal(200);
    expect(done.body.results).to.deep.equal([{ jid, from: 'dead', queue: 'parked' }]);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    expect(JSON.parse((await t.redis.lindex(t.keys.queue('parked'), 0))!).jid).to.equal(jid);
  });

  it('pauses and resumes a queue, and empties a set, through the API', async () => {
    const { url } = await startWebNode(t);
    expect(
      (await call(url, '/api/queues/mail/pause', { method: 'POST', action: true, body: { mode: 'sideways' } })).status,
    ).to.equal(400);
    expect(
      (await call(url, '/api/queues/mail/pause', { method: 'POST', action: true, body: { mode: 'out' } })).status,
    ).to.equal(200);
    expect(await t.redis.hgetall(t.keys.paused('mail'))).to.deep.equal({ mail: 'out' });
    expect((await call(url, '/api/queues')).body).to.deep.include({
      queue: 'mail',
      size: 0,
      latency: 0,
      paused: 'out',
      unserved: null,
    });
    expect((await call(url, '/api/queues/mail/resume', { method: 'POST', action: true })).status).to.equal(200);
    expect(await t.redis.hgetall(t.keys.paused('mail'))).to.deep.equal({});
    await addToSet(t, 'retry', 'default', 'Fail', [], Date.now() / 1000 + 3600);
    await addToSet(t, 'retry', 'default', 'Fail', [], Date.now() / 1000 + 3600);
    const emptied = await call(url, '/api/sets/retry/delete', { method: 'POST', action: true, body: { all: true } });
    expect(emptied.body).to.deep.equal({ set: 'retry', deleted: 2 });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it("serves the node's Prometheus metrics on /metrics, a handler it is given, or 404 without one", async () => {
    const { url } = await startWebNode(t);
    const own = await call(url, '/metrics');
    expect(own.status).to.equal(200);
    expect(own.text).to.match(/^nexq_queue_size\b/m);
    const node = await t.start({ mode: 'enqueuer' });
    const bare = await WebServer.start({ port: 0, ctx: node.node.ctx });
    try {
      expect((await call(bare.url, '/metrics')).status).to.equal(404);
    } finally {
      await bare.close();
    }
    const web = await WebServer.start({
      port: 0,
      ctx: node.node.ctx,
      username: 'ops',
      password: 'pw',
      metricsHandler: (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
        res.end('nexq_up 1\n');
      },
    });
    try {
      expect((await call(web.url, '/metrics')).status).to.equal(401);
      const metrics = await call(web.url, '/metrics', { auth: ['ops', 'pw'] });
      expect(metrics.status).to.equal(200);
      expect(metrics.text).to.equal('nexq_up 1\n');
    } finally {
      await web.close();
    }
  });

  it('stops serving when the node stops', async () => {
    const { nexq, url } = await startWebNode(t);
    expect((await call(url, '/api/stats')).status).to.equal(200);
    await t.stop(nexq);
    let error: unknown;
    await call(url, '/api/stats').catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Error);
  });

  it('fails the start, naming the port, when the port is taken', async () => {
    const { nexq } = await startWebNode(t);
    const port = nexq.node.web!.port;
    let error: Error | undefined;
    await t.start({ web: { port } }).catch((err: unknown) => (error = err as Error));
    expect(error?.message).to.match(new RegExp(`web dashboard on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  });

  it('nexq start --web serves it, with basic auth from the environment', async function () {
    this.timeout(30_000);
    const cli = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');
    const child = spawn(
      process.execPath,
      [
        cli,
        'start',
        '--redis',
        t.url,
        '--namespace',
        t.ns,
        '--jobs',
        fixturesJobs,
        '--web',
        '0',
        '--web-host',
        '127.0.0.1',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NEXQ_LOG_LEVEL: 'info', NEXQ_WEB_USERNAME: 'ops', NEXQ_WEB_PASSWORD: 'cli-secret' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = (
        await waitFor(() => /web dashboard on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr), 15_000, 'the dashboard URL')
      )[1];
      expect((await call(url, '/api/stats')).status).to.equal(401);
      expect((await call(url, '/api/stats', { auth: ['ops', 'cli-secret'] })).body).to.include({ processes: 1 });
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(stderr).not.to.include('cli-secret');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
