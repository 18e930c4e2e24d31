import { expect } from 'chai';
import { Actor } from '../../src/runtime';
import { RestartType, shouldRestart, Supervisor, SupervisorEvent } from '../../supervisors/supervisor';
import { child, crash, probeChild, settled } from './support';
import { Probe } from '../runtime/support';

async function supervise(restart: RestartType): Promise<{ sup: Supervisor; w: Probe; events: SupervisorEvent[] }> {
  const log: string[] = [];
  const events: SupervisorEvent[] = [];
  const sup = await Actor.start(
    new Supervisor({ children: [probeChild('w', log, { restart })], onEvent: (e) => events.push(e) }),
  );
  return { sup, w: child(sup, 'w'), events };
}

/** Makes `w` exit cleanly with `reason` via stopSelf, and waits for the supervisor to react. */
async function exitCleanly(sup: Supervisor, w: Probe, reason: 'normal' | 'shutdown'): Promise<void> {
  w.cast({ type: 'stop', reason });
  expect(await w.exited).to.equal(reason);
  await settled(sup);
}

describe('Supervisor restart types', function () {
  this.timeout(2000);

  it('temporary: a crashed child is not restarted', async () => {
    const { sup, w, events } = await supervise('temporary');
    await crash(w);
    await settled(sup);
    expect(sup.child('w')).to.equal(undefined);
    expect(events.map((e) => e.type)).to.deep.equal(['child_exited']);
    expect(sup.alive).to.equal(true);
    await sup.stop('shutdown');
  });

  it('transient: a crashed child is restarted', async () => {
    const { sup, w } = await supervise('transient');
    await crash(w);
    await settled(sup);
    const next = child(sup, 'w');
    expect(next).to.not.equal(w);
    expect(next.alive).to.equal(true);
    await sup.stop('shutdown');
  });

  it("transient: a child that exits 'normal' is not restarted", async () => {
    const { sup, w, events } = await supervise('transient');
    await exitCleanly(sup, w, 'normal');
    expect(sup.child('w')).to.equal(undefined);
    expect(events.map((e) => e.type)).to.deep.equal(['child_exited']);
    await sup.stop('shutdown');
  });

  it("transient: a child that exits 'shutdown' is not restarted", async () => {
    const { sup, w } = await supervise('transient');
    await exitCleanly(sup, w, 'shutdown');
    expect(sup.child('w')).to.equal(undefined);
    await sup.stop('shutdown');
  });

  it("permanent: a child that exits 'normal' is restarted", async () => {
    const { sup, w } = await supervise('permanent');
    await exitCleanly(sup, w, 'normal');
    const next = child(sup, 'w');
    expect(next).to.not.equal(w);
    expect(next.alive).to.equal(true);
    await sup.stop('shutdown');
  });

  it('children are permanent by default', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new Supervisor({ children: [probeChild('w', log)] }));
    const w = child(sup, 'w');
    await exitCleanly(sup, w, 'normal');
    expect(child(sup, 'w')).to.not.equal(w);
    await sup.stop('shutdown');
  });

  it('shouldRestart follows the OTP table', () => {
    const crashReason = new Error('x');
    const table = (['permanent', 'transient', 'temporary'] as const).map((type) =>
      [crashReason, 'normal', 'shutdown', 'killed'].map((reason) => shouldRestart(type, reason)),
    );
    expect(table).to.deep.equal([
      [true, true, true, true],
      [true, false, false, true],
      [false, false, false, false],
    ]);
  });
});
