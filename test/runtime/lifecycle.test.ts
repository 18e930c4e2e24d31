import { expect } from 'chai';
import { Actor, ActorExitedError } from '../../src/runtime';
import { Probe, rejectionOf } from './support';

describe('Actor lifecycle', function () {
  this.timeout(2000);
  describe('init', () => {
    it('runs init to completion before any message is handled', async () => {
      const probe = new Probe({ label: 'p', initDelayMs: 20 });
      const started = Actor.start(probe);
      // Sent while init is still awaiting.
      probe.cast({ type: 'record', value: 'early' });
      const reply = probe.call({ type: 'echo', value: 'first-call' });
      await started;
      expect(await reply).to.equal('first-call');
      expect(probe.log).to.deep.equal(['init:p', 'cast:p:early', 'call:p:first-call']);
      await probe.stop();
    });

    it('Actor.start rejects with the error init threw, and the actor is then exited', async () => {
      const boom = new Error('init failed');
      const probe = new Probe({ initError: boom });
      const err = await rejectionOf(Actor.start(probe));
      expect(err).to.equal(boom);
      expect(probe.alive).to.equal(false);
      expect(await probe.exited).to.equal(boom);
      expect(await rejectionOf(probe.call({ type: 'echo', value: 1 }))).to.be.instanceOf(ActorExitedError);
    });
  });

  describe('crash', () => {
    it('a throw in a handler runs terminate with that error and exited resolves with it', async () => {
      const probe = await Actor.start(new Probe());
      const boom = new Error('boom');
      probe.cast({ type: 'crash', error: boom });
      expect(await probe.exited).to.equal(boom);
      expect(probe.terminateReasons).to.have.length(1);
      expect(probe.terminateReasons[0]).to.equal(boom);
      expect(probe.alive).to.equal(false);
    });

    it('the caller whose call crashed the actor gets ActorExitedError with the error as reason', async () => {
      const probe = await Actor.start(new Probe({ name: 'crasher' }));
      const boom = new Error('boom');
      const err = await rejectionOf(probe.call({ type: 'crash', error: boom, delayMs: 5 }));
      expect(err).to.be.instanceOf(ActorExitedError);
      expect((err as ActorExitedError).reason).to.equal(boom);
      expect((err as ActorExitedError).actor).to.equal('crasher');
      expect(await probe.exited).to.equal(boom);
    });

    it('callers queued behind the crashing message get ActorExitedError and are never handled', async () => {
      const probe = await Actor.start(new Probe({ label: 'p' }));
      const boom = new Error('boom');
      const crashing = rejectionOf(probe.call({ type: 'crash', error: boom, delayMs: 10 }));
      const queued = [1, 2, 3].map((value) => rejectionOf(probe.call({ type: 'echo', value })));
      for (const err of await Promise.all(queued)) {
        expect(err).to.be.instanceOf(ActorExitedError);
        expect((err as ActorExitedError).reason).to.equal(boom);
      }
      expect(await crashing).to.be.instanceOf(ActorExitedError);
      expect(probe.log.filter((e) => e.startsWith('call:'))).to.deep.equal([]);
    });

    it('a call made after the crash is rejected at once with ActorExitedError', async () => {
      const probe = await Actor.start(new Probe());
      probe.cast({ type: 'crash', error: new Error('boom') });
      await probe.exited;
      expect(await rejectionOf(probe.call({ type: 'echo', value: 1 }))).to.be.instanceOf(ActorExitedError);
    });
  });

  describe('stop', () => {
    it('runs terminate with the given reason and exits with it', async () => {
      const probe = await Actor.start(new Probe());
      expect(await probe.stop('shutdown')).to.equal('shutdown');
      expect(probe.terminateReasons).to.deep.equal(['shutdown']);
      expect(await probe.exited).to.equal('shutdown');
      expect(probe.alive).to.equal(false);
    });

    it("defaults to the reason 'normal'", async () => {
      const probe = await Actor.start(new Probe());
      expect(await probe.stop()).to.equal('normal');
      expect(probe.terminateReasons).to.deep.equal(['normal']);
    });

    it('waits for the message in hand, then rejects the queued calls, then runs terminate', async () => {
      const probe = await Actor.start(new Probe({ label: 'p' }));
      const inHand = probe.call({ type: 'echo', value: 'in-hand', delayMs: 20 });
      const queued = rejectionOf(probe.call({ type: 'echo', value: 'queued' }));
      await new Promise((resolve) => setImmediate(resolve)); // let the first call start
      const stopped = probe.stop('shutdown');
      expect(await inHand).to.equal('in-hand');
      const err = await queued;
      expect(err).to.be.instanceOf(ActorExitedError);
      expect((err as ActorExitedError).reason).to.equal('shutdown');
      expect(await stopped).to.equal('shutdown');
      expect(probe.log).to.deep.equal([
        'init:p',
        'call:p:in-hand',
        'terminate-start:p:shutdown',
        'terminate:p:shutdown',
      ]);
    });

    it('rejects calls made once a stop was requested', async () => {
      const probe = await Actor.start(new Probe());
      const inHand = probe.call({ type: 'echo', value: 1, delayMs: 10 });
      const stopped = probe.stop('shutdown');
      expect(await rejectionOf(probe.call({ type: 'echo', value: 2 }))).to.be.instanceOf(ActorExitedError);
      await inHand;
      await stopped;
    });

    it("kills an actor whose terminate outlasts the stop timeout: exited resolves with 'killed'", async () => {
      const probe = await Actor.start(new Probe({ label: 'p', terminateDelayMs: Infinity }));
      expect(await probe.stop('shutdown', 30)).to.equal('killed');
      expect(await probe.exited).to.equal('killed');
      expect(probe.alive).to.equal(false);
      expect(probe.log).to.include('terminate-start:p:shutdown');
      expect(probe.log).to.not.include('terminate:p:shutdown');
    });

    it('an actor killed while a call is in hand rejects that call with ActorExitedError', async () => {
      const probe = await Actor.start(new Probe());
      const hung = rejectionOf(probe.call({ type: 'hang' }, Infinity));
      await new Promise((resolve) => setImmediate(resolve)); // let the call start
      expect(await probe.stop('shutdown', 30)).to.equal('killed');
      const err = await hung;
      expect(err).to.be.instanceOf(ActorExitedError);
      expect((err as ActorExitedError).reason).to.equal('killed');
    });

    it('stopSelf from a handler exits with that reason after the message', async () => {
      const probe = await Actor.start(new Probe());
      probe.cast({ type: 'stop', reason: 'normal' });
      expect(await probe.exited).to.equal('normal');
      expect(probe.terminateReasons).to.deep.equal(['normal']);
    });
  });
});
