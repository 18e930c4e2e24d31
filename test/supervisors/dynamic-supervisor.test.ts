import { expect } from 'chai';
import { Actor, ActorExitedError } from '../../src/runtime';
import { DynamicSupervisor } from '../../supervisors/dynamic-supervisor';
import { RestartIntensityError } from '../../supervisors/restart-intensity';
import { ChildSpec } from '../../supervisors/supervisor';
import { eventually, only, Probe, rejectionOf, sleep } from '../runtime/support';
import { crash, probeChild } from './support';

describe('DynamicSupervisor', function () {
  this.timeout(2000);

  it('startChild starts the child and counts it', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const w = await sup.startChild<Probe>(probeChild('w1', log));
    expect(w).to.be.instanceOf(Probe);
    expect(w.alive).to.equal(true);
    expect(log).to.deep.equal(['init:w1']);
    await sup.startChild(probeChild('w2', log));
    expect(sup.count).to.equal(2);
    await sup.stop('shutdown');
  });

  it('children are temporary by default: a crashed child is not restarted and the count drops', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const w = await sup.startChild<Probe>(probeChild('w', log));
    await crash(w);
    await eventually(() => sup.count === 0);
    await sleep(10); // a restart, if any, would have happened by now
    expect(only(log, 'init:')).to.deep.equal(['init:w']);
    expect(sup.alive).to.equal(true);
    await sup.stop('shutdown');
  });

  it('the count drops when a child exits cleanly', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const w1 = await sup.startChild<Probe>(probeChild('w1', log));
    await sup.startChild(probeChild('w2', log));
    await w1.stop('normal');
    await eventually(() => sup.count === 1);
    await sup.stop('shutdown');
  });

  it('restarts a permanent child when it crashes', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const w = await sup.startChild<Probe>(probeChild('w', log, { restart: 'permanent' }));
    await crash(w);
    await eventually(() => only(log, 'init:').length === 2);
    expect(sup.count).to.equal(1);
    await sup.stop('shutdown');
  });

  it('on stop, stops all children concurrently and waits for a slow terminate', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const children = [
      await sup.startChild<Probe>(probeChild('w1', log, { terminateDelayMs: 30, shutdownMs: 1000 })),
      await sup.startChild<Probe>(probeChild('w2', log, { terminateDelayMs: 30, shutdownMs: 1000 })),
    ];
    expect(await sup.stop('shutdown', 2000)).to.equal('shutdown');
    const terminations = only(log, 'terminate-start:', 'terminate:');
    expect(terminations.slice(0, 2).sort(), 'both terminates started before either finished').to.deep.equal([
      'terminate-start:w1:shutdown',
      'terminate-start:w2:shutdown',
    ]);
    expect(terminations.slice(2).sort()).to.deep.equal(['terminate:w1:shutdown', 'terminate:w2:shutdown']);
    for (const w of children) expect(await w.exited).to.equal('shutdown');
    expect(sup.count).to.equal(0);
  });

  it('on stop, kills a child whose terminate outlasts its shutdownMs', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const hung = await sup.startChild<Probe>(probeChild('hung', log, { terminateDelayMs: Infinity, shutdownMs: 30 }));
    const fine = await sup.startChild<Probe>(probeChild('fine', log));
    expect(await sup.stop('shutdown', 2000)).to.equal('shutdown');
    expect(await hung.exited).to.equal('killed');
    expect(await fine.exited).to.equal('shutdown');
  });

  it('startChild after the supervisor stopped rejects with ActorExitedError', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    await sup.stop('shutdown');
    const err = await rejectionOf(sup.startChild(probeChild('late', log)));
    expect(err).to.be.instanceOf(ActorExitedError);
    expect(log, 'the child must not be started').to.deep.equal([]);
  });

  it('a child whose start completes after the supervisor stopped is stopped, and startChild rejects', async () => {
    const log: string[] = [];
    const sup = await Actor.start(new DynamicSupervisor());
    const starting = rejectionOf(sup.startChild(probeChild('slow', log, { initDelayMs: 20 })));
    await sup.stop('shutdown');
    const err = await starting;
    expect(err).to.be.instanceOf(ActorExitedError);
    await eventually(() => log.includes('terminate:slow:shutdown'));
  });

  it('gives up with RestartIntensityError when a permanent child keeps crashing', async () => {
    const started: Probe[] = [];
    const spec: ChildSpec = {
      id: 'w',
      restart: 'permanent',
      start: async () => {
        const probe = await Actor.start(new Probe({ label: 'w' }));
        started.push(probe);
        return probe;
      },
    };
    const sup = await Actor.start(new DynamicSupervisor({ maxRestarts: 1, maxSeconds: 5 }));
    await sup.startChild(spec);
    await crash(started[0]);
    await eventually(() => started.length === 2);
    expect(sup.alive).to.equal(true);
    const last = new Error('again');
    await crash(started[1], last);
    const reason = await sup.exited;
    expect(reason).to.be.instanceOf(RestartIntensityError);
    expect((reason as RestartIntensityError).lastReason).to.equal(last);
    expect(started).to.have.length(2);
  });
});
