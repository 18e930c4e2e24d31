import { expect } from 'chai';
import { Actor } from '../../src/runtime';
import { eventually, Probe, sleep } from './support';

/** A Probe that records every `send` made to it, delivered or not. */
class SendSpy extends Probe {
  readonly sendAttempts: unknown[] = [];
  override send(msg: unknown): void {
    this.sendAttempts.push(msg);
    super.send(msg);
  }
}

describe('Actor cast, send and timers', function () {
  this.timeout(2000);
  it('delivers a cast to handleCast', async () => {
    const probe = await Actor.start(new Probe({ label: 'p' }));
    probe.cast({ type: 'record', value: 'hello' });
    await probe.call({ type: 'echo', value: 'sync' });
    expect(probe.log).to.include('cast:p:hello');
    await probe.stop();
  });

  it('delivers an info (send) to handleInfo', async () => {
    const probe = await Actor.start(new Probe());
    probe.send({ kind: 'ping' });
    await probe.call({ type: 'echo', value: 'sync' });
    expect(probe.infos).to.deep.equal([{ kind: 'ping' }]);
    await probe.stop();
  });

  it('sendAfter delivers the info after the delay, not before', async () => {
    const probe = await Actor.start(new Probe());
    probe.sendAfter('tick', 30);
    await sleep(5);
    expect(probe.infos, 'delivered before its delay').to.deep.equal([]);
    await eventually(() => probe.infos.length > 0);
    expect(probe.infos).to.deep.equal(['tick']);
    await probe.stop();
  });

  it('cancelTimer prevents delivery', async () => {
    const probe = await Actor.start(new Probe());
    const timer = probe.sendAfter('tick', 20);
    probe.sendAfter('other', 25);
    probe.cancelTimer(timer);
    await eventually(() => probe.infos.length > 0);
    await sleep(10);
    expect(probe.infos).to.deep.equal(['other']);
    await probe.stop();
  });

  it('clears pending timers when the actor exits', async () => {
    const spy = await Actor.start(new SendSpy());
    spy.sendAfter('tick', 20);
    await spy.stop('shutdown');
    await sleep(40);
    expect(spy.sendAttempts, 'the timer fired after the actor exited').to.deep.equal([]);
  });

  it('arms no timer once exited: a handler that goes on after a kill keeps no process alive', async () => {
    const spy = await Actor.start(new SendSpy());
    spy.kill();
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    spy.sendAfter('tick', 60_000);
    const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    expect(after, 'a live timer left by an exited actor').to.equal(before);
    expect(spy.sendAttempts).to.deep.equal([]);
  });

  it('drops casts and infos sent to an exited actor', async () => {
    const probe = await Actor.start(new Probe({ label: 'p' }));
    await probe.stop();
    probe.cast({ type: 'record', value: 'late' });
    probe.send('late');
    await sleep(5);
    expect(probe.log).to.not.include('cast:p:late');
    expect(probe.infos).to.deep.equal([]);
  });
});
