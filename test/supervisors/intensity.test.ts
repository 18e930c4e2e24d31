import { expect } from 'chai';
import { Actor } from '../../src/runtime';
import { RestartIntensity, RestartIntensityError } from '../../supervisors/restart-intensity';
import { ChildSpec, Supervisor, SupervisorEvent } from '../../supervisors/supervisor';
import { Probe } from '../runtime/support';
import { child, crash, probeChild, settled } from './support';

describe('RestartIntensity', () => {
  it('allows maxRestarts restarts within the window and refuses the next one', () => {
    const intensity = new RestartIntensity(3, 5);
    expect([0, 1000, 2000].map((t) => intensity.allowRestart(t))).to.deep.equal([true, true, true]);
    expect(intensity.allowRestart(3000)).to.equal(false);
  });

  it('allows restarts again once the window has passed', () => {
    const intensity = new RestartIntensity(2, 5);
    expect(intensity.allowRestart(0)).to.equal(true);
    expect(intensity.allowRestart(100)).to.equal(true);
    expect(intensity.allowRestart(200)).to.equal(false);
    expect(intensity.allowRestart(200 + 5000 + 1)).to.equal(true);
  });

  it('forgets restarts older than maxSeconds (the window slides)', () => {
    const intensity = new RestartIntensity(2, 5);
    expect(intensity.allowRestart(0)).to.equal(true);
    expect(intensity.allowRestart(3000)).to.equal(true);
    // The restart at 0 is out of the window (5000 - 5 s), so only 3000 and 5000 count.
    expect(intensity.allowRestart(5000)).to.equal(true);
    // 3000 and 5000 are still in the window of 6000.
    expect(intensity.allowRestart(6000)).to.equal(false);
  });

  it('maxRestarts 0 refuses every restart', () => {
    expect(new RestartIntensity(0, 5).allowRestart(0)).to.equal(false);
  });
});

describe('Supervisor restart intensity', function () {
  this.timeout(2000);

  /** A child spec that starts fine the first time and whose init throws on every later start. */
  function failsAfterFirstStart(id: string, log: string[]): { spec: ChildSpec; starts: () => number } {
    let starts = 0;
    const spec: ChildSpec = {
      id,
      start: () => {
        starts++;
        const probe =
          starts === 1
            ? new Probe({ label: id, log })
            : new Probe({ label: id, log, initError: new Error(`start ${starts} failed`) });
        return Actor.start(probe);
      },
    };
    return { spec, starts: () => starts };
  }

  it('gives up with RestartIntensityError when a restarted child fails to start every time', async () => {
    const log: string[] = [];
    const events: SupervisorEvent[] = [];
    const flaky = failsAfterFirstStart('flaky', log);
    const sup = await Actor.start(
      new Supervisor({
        maxRestarts: 2,
        maxSeconds: 5,
        children: [probeChild('a', log), flaky.spec],
        onEvent: (e) => events.push(e),
      }),
    );
    const a = child(sup, 'a');
    await crash(child(sup, 'flaky'));
    const reason = await sup.exited;
    expect(reason).to.be.instanceOf(RestartIntensityError);
    expect((reason as RestartIntensityError).childId).to.equal('flaky');
    expect(((reason as RestartIntensityError).lastReason as Error).message).to.equal('start 3 failed');
    expect(flaky.starts(), 'first start + 2 allowed restarts').to.equal(3);
    expect(events.at(-1)).to.deep.include({ type: 'gave_up', id: 'flaky' });
    expect(await a.exited, 'the siblings are stopped when the supervisor gives up').to.equal('shutdown');
  });

  it('gives up when a child is crashed more than maxRestarts times within maxSeconds', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new Supervisor({ maxRestarts: 2, maxSeconds: 5, children: [probeChild('w', log)] }));
    for (let i = 1; i <= 2; i++) {
      await crash(child(sup, 'w'), new Error(`crash ${i}`));
      await settled(sup);
      expect(sup.alive, `gave up after crash ${i}`).to.equal(true);
    }
    const last = new Error('crash 3');
    await crash(child(sup, 'w'), last);
    const reason = await sup.exited;
    expect(reason).to.be.instanceOf(RestartIntensityError);
    expect((reason as RestartIntensityError).lastReason).to.equal(last);
    expect(sup.alive).to.equal(false);
  });

  describe('escalation to a parent supervisor', () => {
    function innerSpec(log: string[], worker: ChildSpec): ChildSpec {
      return {
        id: 'inner',
        start: () => Actor.start(new Supervisor({ name: 'inner', maxRestarts: 2, maxSeconds: 5, children: [worker] })),
      };
    }

    it('the parent restarts a child supervisor that gave up', async () => {
      const log: string[] = [];
      const events: SupervisorEvent[] = [];
      const parent = await Actor.start(
        new Supervisor({ children: [innerSpec(log, probeChild('w', log))], onEvent: (e) => events.push(e) }),
      );
      const inner1 = parent.child<Supervisor>('inner')!;
      for (let i = 0; i < 2; i++) {
        await crash(child(inner1, 'w'));
        await settled(inner1);
      }
      await crash(child(inner1, 'w'));
      expect(await inner1.exited).to.be.instanceOf(RestartIntensityError);
      await settled(parent);
      const inner2 = parent.child<Supervisor>('inner')!;
      expect(inner2).to.not.equal(inner1);
      expect(inner2.alive).to.equal(true);
      expect(child(inner2, 'w').alive).to.equal(true);
      expect(events.map((e) => e.type)).to.deep.equal(['child_exited', 'child_restarted']);
      expect((events[0] as { reason: unknown }).reason).to.be.instanceOf(RestartIntensityError);
      await parent.stop('shutdown');
      expect(inner2.alive).to.equal(false);
    });

    it('the parent gives up too when it cannot restart the child supervisor within its own intensity', async () => {
      const log: string[] = [];
      const worker = failsAfterFirstStart('w', log);
      const parent = await Actor.start(
        new Supervisor({ maxRestarts: 1, maxSeconds: 5, children: [innerSpec(log, worker.spec)] }),
      );
      const inner = parent.child<Supervisor>('inner')!;
      await crash(child(inner, 'w'));
      expect(await inner.exited).to.be.instanceOf(RestartIntensityError);
      const reason = await parent.exited;
      expect(reason).to.be.instanceOf(RestartIntensityError);
      expect((reason as RestartIntensityError).childId).to.equal('inner');
      expect(parent.alive).to.equal(false);
    });
  });
});
