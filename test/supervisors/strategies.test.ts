import { expect } from 'chai';
import { Actor } from '../../src/runtime';
import { Strategy, Supervisor } from '../../supervisors/supervisor';
import { only, Probe } from '../runtime/support';
import { child, crash, probeChild, settled } from './support';

async function startABC(strategy: Strategy, log: string[]): Promise<{ sup: Supervisor; before: Probe[] }> {
  const sup = await Actor.start(
    new Supervisor({ strategy, children: ['a', 'b', 'c'].map((id) => probeChild(id, log)) }),
  );
  return { sup, before: ['a', 'b', 'c'].map((id) => child(sup, id)) };
}

/** Log entries (init and finished terminates) written since `mark`. */
function since(log: string[], mark: number): string[] {
  return only(log.slice(mark), 'init:', 'terminate:');
}

describe('Supervisor strategies', function () {
  this.timeout(2000);

  it('one_for_one: crashing B restarts only B', async () => {
    const log: string[] = [];
    const { sup, before } = await startABC('one_for_one', log);
    const [a, b, c] = before;
    const mark = log.length;
    await crash(b);
    await settled(sup);
    expect(child(sup, 'a')).to.equal(a);
    expect(child(sup, 'c')).to.equal(c);
    const newB = child(sup, 'b');
    expect(newB).to.not.equal(b);
    expect([a.alive, newB.alive, c.alive]).to.deep.equal([true, true, true]);
    expect(since(log, mark)).to.deep.equal(['terminate:b:Error: boom', 'init:b']);
    await sup.stop('shutdown');
  });

  it('rest_for_one: crashing B stops C, then restarts B and C in order; A is untouched', async () => {
    const log: string[] = [];
    const { sup, before } = await startABC('rest_for_one', log);
    const [a, b, c] = before;
    const mark = log.length;
    await crash(b);
    await settled(sup);
    expect(child(sup, 'a')).to.equal(a);
    expect(a.alive).to.equal(true);
    expect(child(sup, 'b')).to.not.equal(b);
    expect(child(sup, 'c')).to.not.equal(c);
    expect(c.alive).to.equal(false);
    expect(await c.exited).to.equal('shutdown');
    expect(child(sup, 'b').alive && child(sup, 'c').alive).to.equal(true);
    expect(since(log, mark)).to.deep.equal(['terminate:b:Error: boom', 'terminate:c:shutdown', 'init:b', 'init:c']);
    await sup.stop('shutdown');
  });

  it('rest_for_one: crashing the last child restarts only it', async () => {
    const log: string[] = [];
    const { sup, before } = await startABC('rest_for_one', log);
    const [a, b, c] = before;
    await crash(c);
    await settled(sup);
    expect(child(sup, 'a')).to.equal(a);
    expect(child(sup, 'b')).to.equal(b);
    expect(child(sup, 'c')).to.not.equal(c);
    await sup.stop('shutdown');
  });

  it('one_for_all: crashing B stops A and C (in reverse order) and restarts all three in order', async () => {
    const log: string[] = [];
    const { sup, before } = await startABC('one_for_all', log);
    const mark = log.length;
    await crash(before[1]);
    await settled(sup);
    const after = ['a', 'b', 'c'].map((id) => child(sup, id));
    after.forEach((actor, i) => expect(actor, `child ${i} was not restarted`).to.not.equal(before[i]));
    expect(after.map((x) => x.alive)).to.deep.equal([true, true, true]);
    expect(before.map((x) => x.alive)).to.deep.equal([false, false, false]);
    expect(since(log, mark)).to.deep.equal([
      'terminate:b:Error: boom',
      'terminate:c:shutdown',
      'terminate:a:shutdown',
      'init:a',
      'init:b',
      'init:c',
    ]);
    await sup.stop('shutdown');
  });

  it('one_for_all: a temporary sibling is stopped with the others but not restarted', async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({
        strategy: 'one_for_all',
        children: [probeChild('a', log), probeChild('t', log, { restart: 'temporary' }), probeChild('c', log)],
      }),
    );
    const t = child(sup, 't');
    await crash(child(sup, 'c'));
    await settled(sup);
    expect(await t.exited).to.equal('shutdown');
    expect(sup.child('t')).to.equal(undefined);
    expect(child(sup, 'a').alive && child(sup, 'c').alive).to.equal(true);
    await sup.stop('shutdown');
  });

  it('counts one crash as one restart, however many siblings restart with it (OTP)', async () => {
    const log: string[] = [];
    const sup = await Actor.start(
      new Supervisor({
        strategy: 'rest_for_one',
        maxRestarts: 1,
        maxSeconds: 5,
        children: ['a', 'b', 'c'].map((id) => probeChild(id, log)),
      }),
    );
    await crash(child(sup, 'a'));
    await settled(sup);
    expect(sup.alive).to.equal(true);
    expect(['a', 'b', 'c'].map((id) => child(sup, id).alive)).to.deep.equal([true, true, true]);
    await sup.stop('shutdown');
  });
});
