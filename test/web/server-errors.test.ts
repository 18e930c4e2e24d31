// A request that fails inside the dashboard (here: Redis refuses a read, the queue's key holding a
// string) answers a plain 500 in every form the dashboard is served in: no Redis error, no stack,
// no script sha reach the client; the log gets the error with its stack. A failing metrics scrape
// does the same.
import { expect } from 'chai';
import express from 'express';
import { Gauge, Registry } from 'prom-client';
import { nexqDashboard } from '../../src';
import { registryHandler } from '../../src/metrics/cluster-gauges';
import { INTERNAL_ERROR } from '../../src/web/respond';
import { captureLogs } from '../support/capture-logs';
import { useNodes } from '../support/node';
import { call, useAppServers } from './support';

describe('web dashboard: a request that fails inside', () => {
  const t = useNodes();
  const apps = useAppServers();

  /** Breaks the queue `default` for reads: its key holds a string, so LLEN fails with WRONGTYPE. */
  const breakQueue = () => t.redis.set(t.keys.queue('default'), 'not a list');

  function expectPlain500(answer: { status: number; body: unknown; text: string }, logged: string): void {
    expect(answer.status).to.equal(500);
    expect(answer.body).to.deep.equal({ error: INTERNAL_ERROR });
    expect(answer.text).not.to.match(/WRONGTYPE|at \S+ \(|script/);
    expect(logged, 'the log has the error').to.include('WRONGTYPE');
    expect(logged, 'and its stack').to.match(/\bat \S+ \(/);
  }

  it("the node's own server answers a plain 500 and logs the Redis error with its stack", async () => {
    const logs = captureLogs('pretty');
    const nexq = await t.start({ web: { port: 0 }, logger: logs.logger });
    await breakQueue();
    expectPlain500(await call(nexq.node.web!.url, '/api/queues/default'), logs.text());
    expect(nexq.node.running).to.equal(true);
  });

  it('mounted in Express, a plain 500 too, not the app error page with the stack', async () => {
    const logs = captureLogs('pretty');
    const app = express();
    app.use(
      '/jobs',
      apps.keep(nexqDashboard({ redis: t.url, namespace: t.ns, keyLayout: t.keys.layout, logger: logs.logger })),
    );
    const base = await apps.serve(app);
    await breakQueue();
    expectPlain500(await call(base, '/jobs/api/queues/default'), logs.text());
  });

  it("a metrics scrape whose collection fails answers a plain 500; the error goes to the handler's log", async () => {
    const registry = new Registry();
    new Gauge({
      name: 'broken',
      help: 'fails to collect',
      registers: [registry],
      collect() {
        throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
      },
    });
    const errors: Error[] = [];
    const handler = registryHandler(registry, (err) => errors.push(err));
    const base = await apps.serve((req, res) => {
      Promise.resolve(handler(req, res)).catch(() => res.destroy());
    });
    const answer = await call(base, '/metrics');
    expect(answer.status).to.equal(500);
    expect(answer.text).not.to.include('WRONGTYPE');
    expect(errors.map((e) => e.message)).to.deep.equal([
      'WRONGTYPE Operation against a key holding the wrong kind of value',
    ]);
  });
});
