// Rewriting some top-level fields of a job's JSON while every other byte stays as it was.
import { expect } from 'chai';
import { members, rewriteMembers } from '../../src/job/json-members';

describe('rewriteMembers', () => {
  it('keeps the exact text of fields it does not rewrite: float wholes, big integers, spacing inside values', () => {
    const raw = '{"created_at":1700000000.0,"big":12345678901234567890,"x":{"a": [1, 2.50]},"s":"\\u00e9\\"q"}';
    const out = rewriteMembers(raw, { retry_count: '1' });
    expect(out).to.equal(
      '{"created_at":1700000000.0,"big":12345678901234567890,"x":{"a": [1, 2.50]},"s":"\\u00e9\\"q","retry_count":1}',
    );
  });

  it('replaces a field in place, keeping the order of the others', () => {
    expect(rewriteMembers('{"a":1,"retry_count":1,"b":2}', { retry_count: '2' })).to.equal(
      '{"a":1,"retry_count":2,"b":2}',
    );
  });

  it('appends new fields at the end, in the order given', () => {
    expect(rewriteMembers('{"a":1}', { y: '"y"', x: 'true' })).to.equal('{"a":1,"y":"y","x":true}');
  });

  it('removes a field set to undefined', () => {
    expect(rewriteMembers('{"a":1,"b":2,"c":3}', { b: undefined })).to.equal('{"a":1,"c":3}');
  });

  it('reads objects with whitespace around keys, colons and commas', () => {
    const raw = ' {\n  "a" : 1 ,\n  "b":\t"two"\n}\n';
    expect(rewriteMembers(raw, { c: '3' })).to.equal('{"a":1,"b":"two","c":3}');
    expect(JSON.parse(rewriteMembers(raw, { a: '9' }))).to.deep.equal({ a: 9, b: 'two' });
  });

  it('is not fooled by braces, brackets, commas and escaped quotes inside strings', () => {
    const raw = '{"msg":"a, b} ] \\" {","next":[1,{"k":"}"}]}';
    expect(rewriteMembers(raw, { z: '0' })).to.equal('{"msg":"a, b} ] \\" {","next":[1,{"k":"}"}],"z":0}');
  });

  it('handles the empty object', () => {
    expect(rewriteMembers('{}', { a: '1' })).to.equal('{"a":1}');
  });

  it('matches keys by their decoded name, keeping the raw key text', () => {
    expect(rewriteMembers('{"retry\\u005fcount":1}', { retry_count: '5' })).to.equal('{"retry\\u005fcount":5}');
  });

  it('rewrites a repeated key so that a JSON reader, which takes the last one, sees the new value', () => {
    const out = rewriteMembers('{"retry_count":1,"a":1,"retry_count":1}', { retry_count: '2' });
    expect(JSON.parse(out).retry_count).to.equal(2);
  });

  it('treats a field named like an Object.prototype member as an ordinary field', () => {
    expect(rewriteMembers('{"constructor":1,"toString":2}', { a: '1' })).to.equal(
      '{"constructor":1,"toString":2,"a":1}',
    );
  });

  it('refuses text that is not a JSON object', () => {
    expect(() => members('[1,2]')).to.throw(SyntaxError);
    expect(() => members('{"a":1')).to.throw(SyntaxError);
  });
});
