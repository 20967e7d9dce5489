import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonWithin } from '../../src/envelope/json-within.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

const values = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 5, maxLength: 60 }),
);

describe('jsonWithin', () => {
  it('writes what JSON.stringify writes when that fits the limit, and nothing when it does not', () => {
    fc.assert(
      fc.property(values, fc.integer({ min: 0, max: 4096 }), (value, limit) => {
        const json = JSON.stringify(value);
        expect(jsonWithin(value, limit)).toBe(utf8(json) <= limit ? json : undefined);
      }),
      { numRuns: 500 },
    );
  });

  it('writes exactly at the limit and refuses one byte under it', () => {
    fc.assert(
      fc.property(values, (value) => {
        const json = JSON.stringify(value);
        expect(jsonWithin(value, utf8(json))).toBe(json);
        expect(jsonWithin(value, utf8(json) - 1)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out of objects, and writes as null in arrays, what JSON.stringify does', () => {
    const odd = {
      a: undefined,
      f: () => 1,
      s: Symbol('x'),
      d: new Date(0),
      list: [undefined, () => 1],
    };
    expect(jsonWithin(odd, 1000)).toBe(JSON.stringify(odd));
  });
});
