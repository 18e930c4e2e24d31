// Decoding payloads read from Redis, and encoding new ones.
import { expect } from 'chai';
import { decodeJob, encodeNewJob, InvalidJobError, MalformedJobError } from '../../src/job/job';

function decodeError(raw: string): Error {
  try {
    decodeJob(raw);
  } catch (err) {
    return err as Error;
  }
  return expect.fail(`decodeJob accepted ${raw}`);
}

describe('decodeJob', () => {
  it('accepts a minimal job and keeps unknown fields', () => {
    const job = decodeJob('{"class":"A","args":[1],"jid":"j","queue":"q","custom":{"x":1}}');
    expect(job).to.deep.include({ class: 'A', args: [1], jid: 'j', queue: 'q', custom: { x: 1 } });
  });

  it('accepts retry as true, false or an integer, and retry_count null', () => {
    for (const retry of ['true', 'false', '3']) decodeJob(`{"class":"A","args":[],"jid":"j","retry":${retry}}`);
    decodeJob('{"class":"A","args":[],"jid":"j","retry_count":null}');
  });

  const cases: Array<[string, string, string]> = [
    ['invalid JSON', '{"class":', 'not valid JSON'],
    ['a JSON array', '[1]', 'got an array'],
    ['a JSON string', '"job"', 'got string'],
    ['null', 'null', 'JSON object'],
    ['no class', '{"args":[],"jid":"j"}', '"class"'],
    ['an empty class', '{"class":"","args":[],"jid":"j"}', '"class"'],
    ['args not an array', '{"class":"A","args":{},"jid":"j"}', '"args"'],
    ['no jid', '{"class":"A","args":[]}', '"jid"'],
    ['a queue that is not a string', '{"class":"A","args":[],"jid":"j","queue":1}', '"queue"'],
    ['retry as a string', '{"class":"A","args":[],"jid":"j","retry":"yes"}', '"retry"'],
    ['a fractional retry_count', '{"class":"A","args":[],"jid":"j","retry_count":1.5}', '"retry_count"'],
  ];
  for (const [what, raw, says] of cases) {
    it(`rejects ${what} with a MalformedJobError that says so`, () => {
      const err = decodeError(raw);
      expect(err).to.be.instanceOf(MalformedJobError);
      expect(err.message).to.contain(says);
    });
  }
});

describe('encodeNewJob', () => {
  it("writes Sidekiq's fields in order with float timestamps", () => {
    const { jid, json } = encodeNewJob('q', 'Mailer::Welcome', [1, 'a'], {});
    expect(json).to.match(
      new RegExp(
        `^\\{"retry":true,"queue":"q","class":"Mailer::Welcome","args":\\[1,"a"\\],"jid":"${jid}","created_at":\\d+\\.\\d+,"enqueued_at":\\d+\\.\\d+\\}$`,
      ),
    );
    expect(jid).to.match(/^[0-9a-f-]{36}$/);
  });

  it('uses the given jid and retry', () => {
    const { jid, json } = encodeNewJob('q', 'A', [], { jid: 'mine', retry: 0 });
    expect(jid).to.equal('mine');
    expect(JSON.parse(json)).to.include({ jid: 'mine', retry: 0 });
  });

  it("writes Sidekiq's per-job backtrace option, and refuses one that is not true, false or a count", () => {
    expect(JSON.parse(encodeNewJob('q', 'A', [], { backtrace: true }).json)).to.include({ backtrace: true });
    expect(JSON.parse(encodeNewJob('q', 'A', [], { backtrace: 5 }).json)).to.include({ backtrace: 5 });
    expect(JSON.parse(encodeNewJob('q', 'A', [], { backtrace: false }).json)).to.include({ backtrace: false });
    expect(encodeNewJob('q', 'A', []).json).not.to.include('backtrace');
    expect(() => encodeNewJob('q', 'A', [], { backtrace: 'all' as never })).to.throw(
      InvalidJobError,
      'backtrace must be true, false or a number of lines >= 0',
    );
    expect(() => encodeNewJob('q', 'A', [], { backtrace: -1 })).to.throw(InvalidJobError, /backtrace/);
  });

  it('rejects bad input with InvalidJobError', () => {
    expect(() => encodeNewJob('q', '', [])).to.throw(InvalidJobError);
    expect(() => encodeNewJob('q', 'A', 'x' as unknown as unknown[])).to.throw(InvalidJobError, /array/);
    expect(() => encodeNewJob('q', 'A', [], { retry: -1 })).to.throw(InvalidJobError, /retry/);
    expect(() => encodeNewJob('q', 'A', [], { retry: 1.5 })).to.throw(InvalidJobError, /retry/);
    expect(() => encodeNewJob('q', 'A', [], { jid: '' })).to.throw(InvalidJobError, /jid/);
    expect(() => encodeNewJob('q', 'A', [1n])).to.throw(InvalidJobError, /JSON/);
  });
});
