// A handler's `retry` export: what is accepted, the named backoffs' delays, and how a policy and a
// backoff function's verdict change a failure's fate (src/job/retry-policy.ts, src/job/failure.ts).
import { expect } from 'chai';
import { decideFailure } from '../../src/job/failure';
import { decodeJob } from '../../src/job/job';
import { HandlerRetry, namedDelay, readRetryPolicy } from '../../src/job/retry-policy';
import { performTask } from '../../workers/perform-task';
import { repoRoot } from '../support/paths';
import path from 'node:path';

const NOW = 1700000000;
const ERROR = { class: 'BoomError', message: 'boom' };

function fail(extra: string, handler: HandlerRetry) {
  const raw = `{"class":"A","args":[],"jid":"j","queue":"q"${extra}}`;
  return decideFailure(raw, decodeJob(raw), ERROR, { dialect: 'sidekiq', maxRetries: 25 }, NOW, handler);
}

describe('retry policies', () => {
  it('accepts max, a named or function backoff and a base, and names what is wrong otherwise', () => {
    expect(readRetryPolicy({ max: 3, backoff: 'exponential', base: 2 })).to.deep.equal({
      max: 3,
      backoff: 'exponential',
      base: 2,
    });
    expect(readRetryPolicy({ backoff: () => 5 })).to.be.an('object');
    expect(readRetryPolicy({ backoff: 'linear' })).to.equal(
      "retry.backoff must be 'sidekiq', 'exponential', 'fixed' or a function, not \"linear\"",
    );
    expect(readRetryPolicy({ max: -1 })).to.equal('retry.max must be a whole number >= 0, not -1');
    expect(readRetryPolicy({ tries: 3 })).to.equal('retry has an unknown field "tries" (max, backoff, base)');
    expect(readRetryPolicy(5)).to.equal('retry must be an object { max?, backoff?, base? }, not 5');
  });

  it('computes fixed, exponential and Sidekiq delays from the base', () => {
    expect([0, 1, 2].map((n) => namedDelay('fixed', 7, n))).to.deep.equal([7, 7, 7]);
    expect([0, 1, 2, 3].map((n) => namedDelay('exponential', 10, n))).to.deep.equal([10, 20, 40, 80]);
    expect(namedDelay('sidekiq', 15, 2, () => 0)).to.equal(2 ** 4 + 15);
    expect(namedDelay('sidekiq', 15, 2, () => 0.999)).to.equal(2 ** 4 + 15 + 29 * 3);
  });

  it("applies the handler's max and backoff, and a function's verdict, and keeps Sidekiq's backoff without one", () => {
    const exponential = fail(',"retry":true,"retry_count":2', { policy: { backoff: 'exponential', base: 10 } });
    expect(exponential).to.include({ to: 'retry', at: NOW + 10 * 2 ** 3, retryCount: 3 });
    expect(fail(',"retry":true,"retry_count":1', { policy: { max: 2 } })).to.include({ to: 'dead' });
    expect(fail(',"retry":true', { policy: { backoff: () => 1 }, verdict: 42 })).to.include({ at: NOW + 42 });
    expect(fail(',"retry":true', { policy: { backoff: () => 1 }, verdict: 'kill' })).to.include({ to: 'dead' });
    expect(fail(',"retry":true', { policy: { backoff: () => 1 }, verdict: 'discard' })).to.deep.equal({
      to: 'discard',
    });
    // No verdict (the thread timed out): Sidekiq's count^4 + 15 + rand(30) * (count + 1).
    const fallback = fail(',"retry":true', { policy: { backoff: () => 1 } });
    expect(fallback.to === 'retry' && fallback.at).to.be.within(NOW + 15, NOW + 15 + 29);
    // 'kill' keeps Sidekiq's dead: false (dropped instead of kept).
    expect(fail(',"retry":true,"dead":false', { policy: { backoff: () => 1 }, verdict: 'kill' })).to.deep.equal({
      to: 'discard',
    });
  });

  it('refuses a module whose retry export is wrong, naming the file and the field', async () => {
    const file = path.join(repoRoot, 'test', 'fixtures', 'broken-handlers', 'BadRetry.js');
    const outcome = await performTask({ raw: '{"class":"X","args":[],"jid":"j","queue":"q"}', file });
    expect(outcome.ok).to.equal(false);
    expect(!outcome.ok && outcome.error).to.include({
      class: 'HandlerLoadError',
      code: 'HANDLER_LOAD',
      message: `${file}: retry.backoff must be 'sidekiq', 'exponential', 'fixed' or a function, not "linear"`,
    });
  });
});
