// The one JSON-safety checker of the enqueuer and nexq/testing: its fast path and its messages agree.
import { expect } from 'chai';
import { isJsonSafe, jsonProblems } from '../../src/job/json-safety';

class Money {
  constructor(readonly cents: number) {}
}

const safe: Array<[string, unknown]> = [
  ['strings, finite numbers, booleans and null', ['a', 1, 1.5, -2, true, false, null]],
  ['nested plain objects and arrays', [{ a: [1, { b: 'c' }], d: {} }, []]],
  ['-0 (JSON writes 0, an equal number)', [-0]],
  ['an object without a prototype', [Object.assign(Object.create(null), { a: 1 })]],
  [
    'the same object twice (shared, not cyclic)',
    (() => {
      const x = { n: 1 };
      return [x, x];
    })(),
  ],
  ['a key that is not an identifier', [{ 'a b': 1 }]],
];

const unsafe: Array<[string, unknown[], string]> = [
  ['a function', [() => 1], 'args[0] is a function (JSON writes null)'],
  ['undefined in an array', [1, undefined], 'args[1] is undefined (JSON writes null)'],
  ['undefined in an object', [{ a: undefined }], 'args[0].a is undefined (JSON drops it)'],
  [
    'a Date',
    [{ when: new Date('2024-01-01T00:00:00Z') }],
    'args[0].when is a Date (JSON writes "2024-01-01T00:00:00.000Z")',
  ],
  ['NaN', [NaN], 'args[0] is NaN (JSON writes null)'],
  ['Infinity', [{ n: -Infinity }], 'args[0].n is -Infinity (JSON writes null)'],
  ['a BigInt', [[10n]], 'args[0][0] is a BigInt (JSON cannot write it)'],
  ['a Map', [new Map([[1, 2]])], 'args[0] is a Map (JSON writes {})'],
  ['a Set', [new Set([1])], 'args[0] is a Set (JSON writes {})'],
  ['a symbol', [Symbol('s')], 'args[0] is a symbol (JSON writes null)'],
  ['a class instance', [new Money(5)], 'args[0] is a Money (JSON writes {"cents":5})'],
  // eslint-disable-next-line no-sparse-arrays -- the empty slot is the case under test
  ['an empty array slot', [[1, , 3]], 'args[0][1] is an empty slot (JSON writes null)'],
  ['a toJSON method', [{ toJSON: () => 'x' }], 'args[0] has a toJSON method (JSON writes "x")'],
];

describe('JSON safety of args', () => {
  for (const [what, value] of safe) {
    it(`passes ${what}, on the fast path`, () => {
      expect(isJsonSafe(value)).to.equal(true);
      expect(jsonProblems(value, 'args')).to.deep.equal([]);
    });
  }

  for (const [what, value, problem] of unsafe) {
    it(`names the path of ${what}`, () => {
      expect(isJsonSafe(value)).to.equal(false);
      expect(jsonProblems(value, 'args')).to.deep.equal([problem]);
    });
  }

  it('names a cycle, leaving the fast path when it goes too deep', () => {
    const node: Record<string, unknown> = { name: 'loop' };
    node.self = node;
    expect(jsonProblems([node], 'args')).to.deep.equal([
      'args[0].self refers back to a value that contains it (a cycle: JSON cannot write it)',
    ]);
  });

  it('passes a value nested deeper than the fast path goes', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(isJsonSafe(deep)).to.equal(false);
    expect(jsonProblems([deep], 'args')).to.deep.equal([]);
  });
});
