import { expect } from 'chai';
import { Actor, NameTakenError, Registry } from '../../src/runtime';
import { Probe, rejectionOf } from './support';

describe('Registry', function () {
  this.timeout(2000);
  it('finds a named actor registered at start by whereis and lookup', async () => {
    const registry = new Registry();
    const probe = await Actor.start(new Probe({ name: 'svc', registry }));
    expect(registry.whereis('svc')).to.equal(probe);
    expect(registry.lookup('svc')).to.equal(probe);
    expect(registry.names()).to.deep.equal(['svc']);
    await probe.stop();
  });

  it('removes the name when the actor exits', async () => {
    const registry = new Registry();
    const probe = await Actor.start(new Probe({ name: 'svc', registry }));
    probe.cast({ type: 'crash', error: new Error('boom') });
    await probe.exited;
    expect(registry.whereis('svc')).to.equal(undefined);
    expect(() => registry.lookup('svc')).to.throw(/svc/);
  });

  it('refuses a second live actor with the same name (NameTakenError); the first keeps it', async () => {
    const registry = new Registry();
    const first = await Actor.start(new Probe({ name: 'svc', registry }));
    const second = new Probe({ name: 'svc', registry });
    const err = await rejectionOf(Actor.start(second));
    expect(err).to.be.instanceOf(NameTakenError);
    expect((err as NameTakenError).actorName).to.equal('svc');
    expect(registry.whereis('svc')).to.equal(first);
    expect(second.alive, 'the refused actor must not stay alive').to.equal(false);
    expect(await second.exited).to.equal(err);
    expect(first.alive).to.equal(true);
    await first.stop();
  });

  it('lets a new actor take the name once the old one exited', async () => {
    const registry = new Registry();
    const first = await Actor.start(new Probe({ name: 'svc', registry }));
    await first.stop();
    const second = await Actor.start(new Probe({ name: 'svc', registry }));
    expect(registry.whereis('svc')).to.equal(second);
    await second.stop();
  });

  it('does not register actors started without a registry or without a name', async () => {
    const registry = new Registry();
    const unnamed = await Actor.start(new Probe({ registry }));
    expect(registry.names()).to.deep.equal([]);
    await unnamed.stop();
  });
});
