// Fuzzing every route of the dashboard (fuzz-cases.ts, made from the route table) in each form it
// is served in: the node's own server, mounted in Express, in Fastify and in Node's http, and the
// node's standalone metrics endpoint. Against a healthy Redis no request, however odd, may crash
// the node, leave a rejection unhandled (the global hooks fail the test), answer a 5xx, or answer
// with a stack, a Redis error or a source path; and the node still answers afterwards.
import { expect } from 'chai';
import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { nexqDashboard, nexqFastify } from '../../src';
import { NodeTest, useNodes } from '../support/node';
import { RawAnswer, requestBytes, sendRaw } from '../support/raw-http';
import { FuzzCase, fuzzCases } from './fuzz-cases';
import { addToSet, payload, useAppServers } from './support';

/** What no error answer may show: stack frames, Redis' errors and script shas, nexq's own files. */
const LEAKS = [
  /\n\s+at \S/,
  /\bat \S+ \([^)]*:\d+:\d+\)/,
  /ReplyError|WRONGTYPE|NOSCRIPT|\bERR |@user_script|script: [0-9a-f]{40}/,
  /node_modules|\/dist\/|\/src\//,
];

/** Requests in flight at once. */
const PARALLEL = 8;

function problemOf(c: FuzzCase, answer: RawAnswer | undefined): string | undefined {
  if (!answer) return c.mayDrop ? undefined : 'closed without an answer';
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status >= 400)
    for (const leak of LEAKS)
      if (leak.test(answer.body)) return `answered ${answer.status} showing ${leak}: ${answer.body.slice(0, 300)}`;
  return undefined;
}

/** Sends every case to 127.0.0.1:`port`; resolves to the problems found, one line each. */
async function fuzz(port: number, cases: FuzzCase[]): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) {
      const c = cases[i];
      const bytes = requestBytes(c.request, `127.0.0.1:${port}`);
      const answer = await sendRaw(port, bytes, 15_000, c.halfClose);
      const problem = problemOf(c, answer);
      if (problem) problems.push(`${c.what}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return problems;
}

/**
 * Jobs for the routes to find and act on: one waiting, one in each set, and entries that are not
 * JSON at all in the queue and the dead set, and two groups' counts. Their jids.
 */
async function seed(t: NodeTest): Promise<string[]> {
  const waiting = payload('default', 'Record', [1]);
  await t.redis.lpush(t.keys.queue('default'), waiting.raw, 'not json {');
  await t.redis.zadd(t.keys.jobSet('dead', 'default'), String(Date.now() / 1000), '\xff not json');
  // Groups in Redis as a fair queue's (no node serves it fair here): the groups routes read them.
  await t.redis.hset(t.keys.fair('default').groups, 'g', '1', '..', '2');
  const inSets = await Promise.all(
    (['schedule', 'retry', 'dead'] as const).map((set) => addToSet(t, set, 'default', 'Fail', ['x'])),
  );
  return [waiting.jid, ...inSets];
}

/** The problems found, and proof the server still answers a plain read. */
async function fuzzAndCheck(t: NodeTest, port: number, prefix: string): Promise<void> {
  const problems = await fuzz(port, fuzzCases(prefix, 300, await seed(t)));
  expect(problems.slice(0, 20), `${problems.length} problem(s)`).to.deep.equal([]);
  const stats = await fetch(`http://127.0.0.1:${port}${prefix}/api/stats`);
  expect(stats.status, 'still answering after the fuzz').to.equal(200);
}

describe('fuzzing every route of the dashboard', function () {
  this.timeout(300_000);
  const t = useNodes();
  const apps = useAppServers();
  const portOf = (base: string) => Number(new URL(base).port);

  const options = (t: NodeTest) => ({ redis: t.url, namespace: t.ns, keyLayout: t.keys.layout, metrics: true });

  it("the node's own server and its metrics endpoint: the node keeps running, no 5xx, no internals", async () => {
    const nexq = await t.start({ web: { port: 0 }, metrics: { port: 0 } });
    await fuzzAndCheck(t, Number(new URL(nexq.node.web!.url).port), '');
    const metrics = nexq.node.metricsAddress!;
    const problems = await fuzz(metrics.port, fuzzCases('', 100));
    expect(problems.slice(0, 20), `${problems.length} problem(s) on the metrics endpoint`).to.deep.equal([]);
    expect(nexq.node.running).to.equal(true);
    expect((await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).status).to.equal(200);
  });

  it('mounted in Express (production error pages): no 5xx, no internals', async () => {
    const app = express();
    app.set('env', 'production'); // the app's own error pages, as a deployed app has them
    app.use('/admin/jobs', apps.keep(nexqDashboard(options(t))));
    await fuzzAndCheck(t, portOf(await apps.serve(app)), '/admin/jobs');
  });

  it("mounted in Node's http with mountPath: no 5xx, no internals", async () => {
    const mounted = apps.keep(nexqDashboard({ ...options(t), mountPath: '/jobs' }));
    const base = await apps.serve((req, res) => mounted(req, res, () => res.writeHead(404).end('app')));
    await fuzzAndCheck(t, portOf(base), '/jobs');
  });

  it('registered in Fastify: no 5xx, no internals', async () => {
    const app = Fastify();
    await app.register(nexqFastify(options(t)), { prefix: '/ops/jobs' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await fuzzAndCheck(t, (app.server.address() as AddressInfo).port, '/ops/jobs');
    } finally {
      await app.close();
    }
  });
});
