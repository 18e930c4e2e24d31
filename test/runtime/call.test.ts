import { expect } from 'chai';
import { Actor, CallTimeoutError } from '../../src/runtime';
import { Probe, rejectionOf, sleep } from './support';

/** Records the order messages are handled in, and how many handlers ever ran at once. */
class Serial extends Actor<{ n: number }, { n: number }, { n: number }> {
  readonly order: number[] = [];
  maxConcurrent = 0;
  private running = 0;

  private async handle(n: number): Promise<void> {
    this.running++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running);
    this.order.push(n);
    await sleep(Math.floor(Math.random() * 3));
    await Promise.resolve();
    this.running--;
  }

  protected override async handleCall(msg: { n: number }): Promise<number> {
    await this.handle(msg.n);
    return msg.n * 10;
  }
  protected override async handleCast(msg: { n: number }): Promise<void> {
    await this.handle(msg.n);
  }
  protected override async handleInfo(msg: { n: number }): Promise<void> {
    await this.handle(msg.n);
  }
}

describe('Actor call', function () {
  this.timeout(2000);
  it('resolves with the value the handler returns', async () => {
    const probe = await Actor.start(new Probe());
    expect(await probe.call({ type: 'echo', value: 42, delayMs: 1 })).to.equal(42);
    await probe.stop();
  });

  it('rejects with CallTimeoutError, carrying timeoutMs and the actor name, when the handler is too slow', async () => {
    const probe = await Actor.start(new Probe({ name: 'slowpoke' }));
    const err = await rejectionOf(probe.call({ type: 'echo', value: 1, delayMs: 50 }, 20));
    expect(err).to.be.instanceOf(CallTimeoutError);
    expect((err as CallTimeoutError).code).to.equal('CALL_TIMEOUT');
    expect((err as CallTimeoutError).timeoutMs).to.equal(20);
    expect((err as CallTimeoutError).actor).to.equal('slowpoke');
    expect(probe.alive, 'a timed-out call does not crash the actor').to.equal(true);
    await probe.stop();
  });

  it('handles concurrent calls, casts and infos one at a time, in arrival order', async () => {
    const actor = await Actor.start(new Serial());
    const replies: Promise<number>[] = [];
    for (let n = 0; n < 30; n++) {
      if (n % 3 === 0) replies.push(actor.call<number>({ n }));
      else if (n % 3 === 1) actor.cast({ n });
      else actor.send({ n });
    }
    const results = await Promise.all(replies);
    expect(results).to.deep.equal(Array.from({ length: 10 }, (_, i) => i * 3 * 10));
    // The last message was an info sent after the last call: wait for it with one more call.
    await actor.call({ n: 30 });
    expect(actor.order).to.deep.equal(Array.from({ length: 31 }, (_, i) => i));
    expect(actor.maxConcurrent).to.equal(1);
    await actor.stop();
  });

  it('handles concurrent callers from many async contexts strictly serially', async () => {
    const actor = await Actor.start(new Serial());
    const sent: number[] = [];
    // Callers each wait a random while before calling; the actor must see them in call order.
    const callers = Array.from({ length: 20 }, async (_, n) => {
      await sleep(Math.floor(Math.random() * 5));
      sent.push(n);
      return actor.call<number>({ n });
    });
    const results = await Promise.all(callers);
    expect(results).to.deep.equal(Array.from({ length: 20 }, (_, n) => n * 10));
    expect(actor.order).to.deep.equal(sent);
    expect(actor.maxConcurrent).to.equal(1);
    await actor.stop();
  });
});
