import { expect } from 'chai';
import type { Middleware } from '../../src/run/middleware';
import { useNodes, waitFor } from '../support/node';

describe('middleware', () => {
  const t = useNodes();

  function tracer(name: string, events: string[]): Middleware {
    return {
      name,
      before: (e) => void events.push(`${name}:before:${e.className}`),
      afterSuccess: (e) => void events.push(`${name}:success:${e.className}`),
      afterFailure: (e, err) => void events.push(`${name}:failure:${e.className}:${err.class}`),
    };
  }

  it('runs before hooks in order and after hooks in reverse, around success and failure', async () => {
    const events: string[] = [];
    const nexq = await t.start({
      middleware: [tracer('outer', events), tracer('inner', events)],
      queues: [{ name: 'default', concurrency: 1 }],
    });
    await nexq.enqueue('default', 'Record', [t.url, t.out('mw'), 1]);
    await t.waitForRecords(t.out('mw'));
    await waitFor(() => events.length === 4, 5000, 'success hooks');
    await nexq.enqueue('default', 'Fail', []);
    await waitFor(() => events.length === 8, 5000, 'failure hooks');
    expect(events).to.deep.equal([
      'outer:before:Record',
      'inner:before:Record',
      'inner:success:Record',
      'outer:success:Record',
      'outer:before:Fail',
      'inner:before:Fail',
      'inner:failure:Fail:BoomError',
      'outer:failure:Fail:BoomError',
    ]);
  });

  it('a throwing before hook fails the job (it is retried), and the node keeps running', async () => {
    const broken: Middleware = {
      name: 'broken',
      before: () => {
        throw new Error('middleware refused');
      },
    };
    const nexq = await t.start({ middleware: [broken] });
    await nexq.enqueue('default', 'Record', [t.url, t.out('never'), 1]);
    const entry = await waitFor(
      async () => (await t.redis.zrange(t.keys.retry('default'), 0, -1))[0],
      5000,
      'a retry entry',
    );
    expect(JSON.parse(entry)).to.include({ error_message: 'middleware refused' });
    expect(await t.redis.llen(t.out('never'))).to.equal(0);
  });
});
