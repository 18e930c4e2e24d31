import { expect } from 'chai';
import { Actor, Down, isDown } from '../../src/runtime';
import { eventually, Probe, sleep } from './support';

function downs(probe: Probe): Down[] {
  return probe.infos.filter(isDown);
}

describe('Actor monitors', function () {
  this.timeout(2000);
  it('A monitoring B gets a DOWN info with the ref, B and the crash reason when B crashes', async () => {
    const a = await Actor.start(new Probe());
    const b = await Actor.start(new Probe());
    const ref = a.monitor(b);
    const boom = new Error('boom');
    b.cast({ type: 'crash', error: boom });
    await b.exited;
    await a.call({ type: 'echo', value: 'sync' }); // the DOWN was queued before this call
    const received = downs(a);
    expect(received).to.have.length(1);
    expect(received[0].type).to.equal('DOWN');
    expect(received[0].ref).to.equal(ref);
    expect(received[0].actor).to.equal(b);
    expect(received[0].reason).to.equal(boom);
    await a.stop();
  });

  it('DOWN carries a clean reason when B stops', async () => {
    const a = await Actor.start(new Probe());
    const b = await Actor.start(new Probe());
    const ref = a.monitor(b);
    await b.stop('shutdown');
    await a.call({ type: 'echo', value: 'sync' });
    expect(downs(a).map((d) => [d.ref, d.reason])).to.deep.equal([[ref, 'shutdown']]);
    await a.stop();
  });

  it('monitoring an actor that already exited delivers DOWN at once, with its exit reason', async () => {
    const a = await Actor.start(new Probe());
    const b = await Actor.start(new Probe());
    const boom = new Error('gone');
    b.cast({ type: 'crash', error: boom });
    await b.exited;
    const ref = a.monitor(b);
    await eventually(() => downs(a).length > 0, 200);
    expect(downs(a)).to.have.length(1);
    expect(downs(a)[0].ref).to.equal(ref);
    expect(downs(a)[0].reason).to.equal(boom);
    await a.stop();
  });

  it('each monitor gets its own ref and its own DOWN', async () => {
    const a = await Actor.start(new Probe());
    const b = await Actor.start(new Probe());
    const ref1 = a.monitor(b);
    const ref2 = a.monitor(b);
    expect(ref1).to.not.equal(ref2);
    await b.stop('shutdown');
    await a.call({ type: 'echo', value: 'sync' });
    expect(downs(a).map((d) => d.ref)).to.have.members([ref1, ref2]);
    await a.stop();
  });

  it('demonitor prevents the DOWN', async () => {
    const a = await Actor.start(new Probe());
    const b = await Actor.start(new Probe());
    const ref = a.monitor(b);
    a.demonitor(b, ref);
    b.cast({ type: 'crash', error: new Error('boom') });
    await b.exited;
    await sleep(5);
    await a.call({ type: 'echo', value: 'sync' });
    expect(a.infos).to.deep.equal([]);
    await a.stop();
  });

  it('watch runs its callback once when the actor exits', async () => {
    const b = await Actor.start(new Probe());
    const seen: Down[] = [];
    const ref = b.watch((down) => seen.push(down));
    await b.stop('shutdown');
    await b.stop('shutdown');
    expect(seen).to.have.length(1);
    expect(seen[0].ref).to.equal(ref);
    expect(seen[0].reason).to.equal('shutdown');
  });
});
