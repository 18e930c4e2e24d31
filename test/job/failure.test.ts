// What happens to a failed job: retry (when, with which fields), dead, or discarded.
import { expect } from 'chai';
import type { Dialect } from '../../config/defaults';
import { inflateSync } from 'node:zlib';
import { decideFailure, FailureOutcome, malformedEntry, readBacktrace, retryDelaySeconds } from '../../src/job/failure';
import { decodeJob } from '../../src/job/job';

const NOW = 1700000000; // whole on purpose: timestamps must still be written with a fraction
const ERROR = { class: 'BoomError', message: 'boom' };

function fail(raw: string, dialect: Dialect, maxRetries = 25): FailureOutcome {
  return decideFailure(raw, decodeJob(raw), ERROR, { dialect, maxRetries }, NOW);
}

function payload(extra: string): string {
  return `{"class":"A","args":[],"jid":"j","queue":"q"${extra}}`;
}

/** The retry_count of each retry until the job dies, and the count it died with. */
function lifetime(retry: string, dialect: Dialect, maxRetries = 25): { retried: number[]; diedWith: number } {
  let raw = payload(`,"retry":${retry}`);
  const retried: number[] = [];
  for (;;) {
    const outcome = fail(raw, dialect, maxRetries);
    if (outcome.to === 'discard') throw new Error('discarded');
    const count = JSON.parse(outcome.json).retry_count as number;
    if (outcome.to === 'dead') return { retried, diedWith: count };
    retried.push(count);
    raw = outcome.json;
  }
}

describe('decideFailure', () => {
  it('retries a first failure with retry_count 1 in the exq dialect, with the error and failed_at', () => {
    const outcome = fail(payload(',"retry":true'), 'exq');
    expect(outcome.to).to.equal('retry');
    if (outcome.to !== 'retry') return;
    expect(outcome.retryCount).to.equal(1);
    expect(JSON.parse(outcome.json)).to.deep.include({
      retry_count: 1,
      error_class: 'BoomError',
      error_message: 'boom',
    });
    expect(outcome.json).to.contain('"failed_at":1700000000.0').and.not.to.contain('retried_at');
  });

  it('retries a first failure with retry_count 0 in the sidekiq dialect', () => {
    const outcome = fail(payload(''), 'sidekiq');
    expect(outcome.to).to.equal('retry');
    expect(JSON.parse((outcome as { json: string }).json).retry_count).to.equal(0);
  });

  it('writes retried_at and keeps failed_at on a later failure', () => {
    const outcome = fail(payload(',"retry_count":3,"failed_at":1600000000.0'), 'exq') as { json: string };
    expect(outcome.json).to.contain('"failed_at":1600000000.0').and.to.contain('"retried_at":1700000000.0');
    expect(JSON.parse(outcome.json).retry_count).to.equal(4);
  });

  it('keeps the bytes of every field it does not set', () => {
    const outcome = fail(payload(',"created_at":1700000000.0,"big":12345678901234567890'), 'exq') as { json: string };
    expect(outcome.json).to.contain('"created_at":1700000000.0,"big":12345678901234567890');
  });

  it('allows maxRetries retries for retry: true, counting 1..max in exq and 0..max-1 in sidekiq', () => {
    expect(lifetime('true', 'exq', 3)).to.deep.equal({ retried: [1, 2, 3], diedWith: 4 });
    expect(lifetime('true', 'sidekiq', 3)).to.deep.equal({ retried: [0, 1, 2], diedWith: 3 });
  });

  it('allows as many retries as an integer retry says, whatever maxRetries is', () => {
    expect(lifetime('2', 'exq', 25)).to.deep.equal({ retried: [1, 2], diedWith: 3 });
    expect(lifetime('2', 'sidekiq', 0)).to.deep.equal({ retried: [0, 1], diedWith: 2 });
  });

  it('sends a job with retry: 0, or retry: true and maxRetries 0, to dead on its first failure', () => {
    expect(lifetime('0', 'exq')).to.deep.equal({ retried: [], diedWith: 1 });
    expect(lifetime('0', 'sidekiq')).to.deep.equal({ retried: [], diedWith: 0 });
    expect(lifetime('true', 'exq', 0).retried).to.deep.equal([]);
  });

  it('sends a job with retry: false to dead in the exq dialect', () => {
    const outcome = fail(payload(',"retry":false'), 'exq');
    expect(outcome.to).to.equal('dead');
    expect(JSON.parse((outcome as { json: string }).json)).to.include({ error_class: 'BoomError', retry: false });
  });

  it('discards a job with retry: false in the sidekiq dialect', () => {
    expect(fail(payload(',"retry":false'), 'sidekiq')).to.deep.equal({ to: 'discard' });
  });

  it('schedules the retry by the backoff of its retry count', () => {
    for (let i = 0; i < 50; i++) {
      const exq = fail(payload(',"retry_count":2'), 'exq') as { at: number; retryCount: number };
      expect(exq.retryCount).to.equal(3);
      expect(exq.at).to.be.within(NOW + 15 + 81, NOW + 15 + 81 + 29 * 4);
      const sidekiq = fail(payload(''), 'sidekiq') as { at: number };
      expect(sidekiq.at).to.be.within(NOW + 15, NOW + 15 + 29);
    }
  });

  it('cuts a very long error message', () => {
    const raw = payload('');
    const outcome = decideFailure(
      raw,
      decodeJob(raw),
      { class: 'E', message: 'x'.repeat(50_000) },
      { dialect: 'exq', maxRetries: 25 },
      NOW,
    );
    expect(JSON.parse((outcome as { json: string }).json).error_message.length).to.be.at.most(10_000);
  });
});

describe('error_backtrace', () => {
  const frames = Array.from({ length: 30 }, (_, i) => `at f${i} (/app/jobs/A.js:${i + 1}:1)`);
  const failWith = (extra: string, backtrace?: boolean | number) =>
    decideFailure(
      payload(extra),
      decodeJob(payload(extra)),
      { ...ERROR, backtrace: frames },
      { dialect: 'exq', maxRetries: 25, backtrace },
      NOW,
    ) as { json: string };
  const stored = (outcome: { json: string }) => JSON.parse(outcome.json).error_backtrace;

  it('is written as Sidekiq 6.4 writes it: the JSON array of lines, deflated, base64', () => {
    const field = stored(failWith('', 3));
    expect(field).to.be.a('string');
    expect(JSON.parse(inflateSync(Buffer.from(field, 'base64')).toString())).to.deep.equal(frames.slice(0, 3));
  });

  it("keeps the node's number of lines when the job does not say, and none with false or 0", () => {
    expect(readBacktrace(stored(failWith('', 20)))).to.deep.equal(frames.slice(0, 20));
    expect(readBacktrace(stored(failWith('', true)))).to.deep.equal(frames);
    expect(stored(failWith('', false))).to.equal(undefined);
    expect(stored(failWith('', 0))).to.equal(undefined);
  });

  it("follows the job's own backtrace field over the node's: true, a count, or false", () => {
    expect(readBacktrace(stored(failWith(',"backtrace":true', 0)))).to.deep.equal(frames);
    expect(readBacktrace(stored(failWith(',"backtrace":2', 20)))).to.deep.equal(frames.slice(0, 2));
    expect(stored(failWith(',"backtrace":false', 20))).to.equal(undefined);
  });

  it('is read back compressed, or as the plain array older Sidekiqs wrote', () => {
    expect(readBacktrace(['a', 'b'])).to.deep.equal(['a', 'b']);
    expect(readBacktrace('not base64 deflate')).to.equal(undefined);
    expect(readBacktrace(undefined)).to.equal(undefined);
  });
});

describe('retryDelaySeconds', () => {
  it('is count^4 + 15 + rand(30) * (count + 1)', () => {
    expect(retryDelaySeconds(0, () => 0)).to.equal(15);
    expect(retryDelaySeconds(1, () => 0)).to.equal(16);
    expect(retryDelaySeconds(1, () => 0.9999)).to.equal(16 + 29 * 2);
    expect(retryDelaySeconds(3, () => 0.5)).to.equal(81 + 15 + 15 * 4);
  });
});

describe('malformedEntry', () => {
  it('wraps text that is not JSON in a dead entry that keeps it as the only arg', () => {
    const entry = JSON.parse(malformedEntry('not json', 'job is not valid JSON', 'q', 'new-jid', NOW));
    expect(entry).to.deep.include({
      args: ['not json'],
      queue: 'q',
      jid: 'new-jid',
      retry: false,
      error_class: 'MalformedJobError',
      error_message: 'job is not valid JSON',
    });
    expect(malformedEntry('x', 'r', 'q', 'j', NOW)).to.contain('"failed_at":1700000000.0');
  });

  it('adds the reason to a JSON object, keeping its fields and its jid', () => {
    const entry = malformedEntry(
      '{"jid":"old","args":"x","custom":1.0}',
      'job "args" must be an array',
      'q',
      'new-jid',
      NOW,
    );
    expect(entry).to.contain('"custom":1.0');
    expect(JSON.parse(entry)).to.include({ jid: 'old', error_class: 'MalformedJobError', retry: false });
  });

  it('gives a JSON object without a jid the new one', () => {
    expect(JSON.parse(malformedEntry('{"args":[]}', 'no class', 'q', 'new-jid', NOW)).jid).to.equal('new-jid');
  });
});
