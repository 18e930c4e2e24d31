// Options are checked at start, and a bad one names its key.
import { expect } from 'chai';
import { ConfigError, resolveConfig } from '../../config/validate';
import { Nexq, NexqStartOptions } from '../../src/nexq';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

async function startError(options: Record<string, unknown>): Promise<ConfigError> {
  const base: NexqStartOptions = {
    redis: sharedRedis().url,
    namespace: freshNamespace(),
    logLevel: 'error',
    threads: 1,
  };
  const node = await Nexq.start({ ...base, ...options }).catch((err: unknown) => err);
  if (node instanceof Nexq) {
    await node.stop();
    expect.fail('Nexq.start should have rejected');
  }
  expect(node).to.be.instanceOf(ConfigError);
  return node as ConfigError;
}

describe('config validation', () => {
  it('rejects concurrency 0, naming concurrency', async () => {
    const err = await startError({ concurrency: 0 });
    expect(err.key).to.equal('concurrency');
    expect(err.message).to.contain('concurrency');
  });

  it('rejects a queue name with a space, naming the queue entry', async () => {
    const err = await startError({ queues: [{ name: 'a b' }] });
    expect(err.message).to.contain('queues[0]');
  });

  it('rejects a queue concurrency below 1, naming that key', async () => {
    const err = await startError({ queues: ['ok', { name: 'b', concurrency: 0 }] });
    expect(err.message).to.contain('queues[1].concurrency');
  });

  it('rejects a negative prefetch, naming it and what it is a share of', async () => {
    const err = await startError({ prefetch: -1 });
    expect(err.message).to.include('prefetch').and.include("share of each queue's concurrency");
  });

  it('rejects a negative maxYoungGenerationMb, naming it', async () => {
    const err = await startError({ maxYoungGenerationMb: -1 });
    expect(err.key).to.equal('maxYoungGenerationMb');
  });

  it('takes maxYoungGenerationMb 16 and threadYoungGenerationMb 4 by default, 0 (V8 sizes them) when given', () => {
    expect(resolveConfig({})).to.include({ maxYoungGenerationMb: 16, threadYoungGenerationMb: 4 });
    expect(resolveConfig({ maxYoungGenerationMb: 0, threadYoungGenerationMb: 0 })).to.include({
      maxYoungGenerationMb: 0,
      threadYoungGenerationMb: 0,
    });
  });

  it('takes maxPayloadBytes 1 MB by default and 0 for no limit, and rejects a negative or fractional one', async () => {
    expect(resolveConfig({}).maxPayloadBytes).to.equal(1024 * 1024);
    expect(resolveConfig({ maxPayloadBytes: 0 }).maxPayloadBytes).to.equal(0);
    for (const maxPayloadBytes of [-1, 1.5])
      expect((await startError({ maxPayloadBytes })).key).to.equal('maxPayloadBytes');
  });

  it("takes exqNodeTimeout 360 (Exq's default threshold) by default and 0 for off, and rejects a negative one", async () => {
    expect(resolveConfig({}).exqNodeTimeout).to.equal(360);
    expect(resolveConfig({ exqNodeTimeout: 0 }).exqNodeTimeout).to.equal(0);
    expect((await startError({ exqNodeTimeout: -1 })).key).to.equal('exqNodeTimeout');
  });

  it('rejects a fractional threadYoungGenerationMb, naming it', async () => {
    const err = await startError({ threadYoungGenerationMb: 2.5 });
    expect(err.key).to.equal('threadYoungGenerationMb');
  });

  it('rejects an unknown option, naming it', async () => {
    const err = await startError({ colour: 'blue' });
    expect(err.message).to.contain('colour');
  });

  it('rejects a redis URL of another scheme without showing it', async () => {
    const err = await startError({ redis: 'http://user:secret@example.com' });
    expect(err.key).to.equal('redis');
    expect(err.message).not.to.contain('secret');
  });

  it('rejects a repeated queue name, a bad mode and a bad dialect', async () => {
    expect((await startError({ queues: ['a', 'a'] })).key).to.equal('queues');
    expect((await startError({ mode: 'worker' })).key).to.equal('mode');
    expect((await startError({ dialect: 'resque' })).key).to.equal('dialect');
  });

  it('uses the sidekiq dialect by default with the empty namespace, and exq otherwise', () => {
    expect(resolveConfig({ namespace: '' }).dialect).to.equal('sidekiq');
    expect(resolveConfig({ namespace: 'exq' }).dialect).to.equal('exq');
    expect(resolveConfig({ namespace: '', dialect: 'exq' }).dialect).to.equal('exq');
  });

  it('takes a rate limit strict by default, a burst as a number or true (the limit), and rejects any other burst', () => {
    const queues = [
      { name: 'strict', rateLimit: { limit: 20, per: 1 } },
      { name: 'off', rateLimit: { limit: 20, per: 1, burst: false } },
      { name: 'bursty', rateLimit: { limit: 20, per: 1, burst: true } },
      { name: 'smooth', rateLimit: { limit: 20, per: 1, burst: 1 } },
    ];
    expect(resolveConfig({ queues }).queues.map((q) => q.rateLimit)).to.deep.equal([
      { limit: 20, per: 1 },
      { limit: 20, per: 1 },
      { limit: 20, per: 1, burst: 20 },
      { limit: 20, per: 1, burst: 1 },
    ]);
    for (const burst of [0, 2.5, 'yes'])
      expect(() => resolveConfig({ classRateLimits: { Mailer: { limit: 5, per: 1, burst } } } as never))
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('classRateLimits.Mailer.burst');
  });

  it('gives each queue the default concurrency unless it names its own', () => {
    expect(resolveConfig({ concurrency: 4, queues: ['a', { name: 'b', concurrency: 9 }] }).queues).to.deep.equal([
      { name: 'a', concurrency: 4 },
      { name: 'b', concurrency: 9 },
    ]);
  });
});
