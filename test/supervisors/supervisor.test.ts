import { expect } from 'chai';
import { Actor } from '../../src/runtime';
import { Supervisor, SupervisorEvent } from '../../supervisors/supervisor';
import { only, rejectionOf } from '../runtime/support';
import { child, crash, probeChild, settled } from './support';

describe('Supervisor start and stop', function () {
  this.timeout(2000);

  it("starts children in spec order, each one's init done before the next starts", async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({
        children: [
          probeChild('a', log, { initDelayMs: 5 }),
          probeChild('b', log),
          probeChild('c', log, { initDelayMs: 2 }),
        ],
      }),
    );
    expect(log).to.deep.equal(['init:a', 'init:b', 'init:c']);
    expect(['a', 'b', 'c'].map((id) => child(sup, id).alive)).to.deep.equal([true, true, true]);
    await sup.stop('shutdown');
  });

  it('stops children in reverse order, each with reason shutdown', async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({ children: ['a', 'b', 'c'].map((id) => probeChild(id, log, { terminateDelayMs: 2 })) }),
    );
    const children = ['a', 'b', 'c'].map((id) => child(sup, id));
    expect(await sup.stop('shutdown')).to.equal('shutdown');
    expect(only(log, 'terminate-start:', 'terminate:')).to.deep.equal([
      'terminate-start:c:shutdown',
      'terminate:c:shutdown',
      'terminate-start:b:shutdown',
      'terminate:b:shutdown',
      'terminate-start:a:shutdown',
      'terminate:a:shutdown',
    ]);
    expect(children.map((c) => c.alive)).to.deep.equal([false, false, false]);
  });

  it('if a child fails to start, stops the children already started and fails to start', async () => {
    const log: string[] = [];
    const boom = new Error('c cannot start');
    const sup = new Supervisor({
      children: [
        probeChild('a', log),
        probeChild('b', log),
        probeChild('c', log, { initError: boom }),
        probeChild('d', log),
      ],
    });
    const err = await rejectionOf(Actor.start(sup));
    expect(err).to.equal(boom);
    expect(only(log, 'init:', 'terminate:')).to.deep.equal([
      'init:a',
      'init:b',
      'terminate:b:shutdown',
      'terminate:a:shutdown',
    ]);
    expect(sup.alive).to.equal(false);
    expect(await sup.exited).to.equal(boom);
  });

  it('refuses two children with the same id', () => {
    const log: string[] = [];
    expect(() => new Supervisor({ children: [probeChild('a', log), probeChild('a', log)] })).to.throw(/a/);
  });

  it('kills a child whose terminate outlasts its shutdownMs, and still completes the stop', async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({
        children: [
          probeChild('a', log),
          probeChild('b', log, { terminateDelayMs: Infinity, shutdownMs: 30 }),
          probeChild('c', log),
        ],
      }),
    );
    const [a, b, c] = ['a', 'b', 'c'].map((id) => child(sup, id));
    expect(await sup.stop('shutdown', 2000)).to.equal('shutdown');
    expect(await b.exited).to.equal('killed');
    expect(await a.exited).to.equal('shutdown');
    expect(await c.exited).to.equal('shutdown');
    expect(only(log, 'terminate-start:', 'terminate:')).to.deep.equal([
      'terminate-start:c:shutdown',
      'terminate:c:shutdown',
      'terminate-start:b:shutdown',
      'terminate-start:a:shutdown',
      'terminate:a:shutdown',
    ]);
  });

  it('which_children reports each child id and whether it is alive', async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({ children: [probeChild('a', log), probeChild('b', log, { restart: 'temporary' })] }),
    );
    await crash(child(sup, 'b'));
    const children = await sup.call<{ id: string; alive: boolean }[]>({ type: 'which_children' });
    expect(children.map(({ id, alive }) => ({ id, alive }))).to.deep.equal([
      { id: 'a', alive: true },
      { id: 'b', alive: false },
    ]);
    await sup.stop('shutdown');
  });

  it('reports child exits and restarts through onEvent', async () => {
    const log: string[] = [];
    const events: SupervisorEvent[] = [];
    const sup = await Actor.start(new Supervisor({ children: [probeChild('a', log)], onEvent: (e) => events.push(e) }));
    const boom = new Error('boom');
    await crash(child(sup, 'a'), boom);
    await settled(sup);
    expect(events).to.deep.equal([
      { type: 'child_exited', id: 'a', reason: boom },
      { type: 'child_restarted', id: 'a' },
    ]);
    await sup.stop('shutdown');
  });
});
