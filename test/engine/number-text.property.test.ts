import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  differsFromDouble,
  mayHoldOddNumber,
  parseJson,
  stringifyJson,
} from '../../src/json/number-text.js';
import { withoutPrototypes } from '../../src/engine/guards/null-prototype.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Any text of JSON's number grammar, from the plain to the absurd. */
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,30}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,25}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(500)), {
      nil: undefined,
    }),
  )
  .map(
    ([neg, int, frac, exp]) =>
      `${neg ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `${exp[0]}${exp[1]}${exp[2]}`}`,
  );

/**
 * Compact JSON text whose numbers are written any way the grammar allows. `unique`
 * gives every object distinct keys that are not array indices, so the text is
 * exactly what writing its value back gives (JSON.parse keeps the last of repeated
 * keys, and puts index-like keys first).
 */
function jsonText(unique: boolean): fc.Arbitrary<string> {
  const key = fc
    .oneof(fc.string(), fc.constantFrom('__proto__', 'toString', 'a', '1'))
    .filter((k) => !unique || !/^(0|[1-9][0-9]*)$/.test(k));
  return fc.letrec<{ value: string; container: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      numberText,
      fc.constantFrom('true', 'false', 'null'),
      fc.string().map((s) => JSON.stringify(s)),
      tie('container'),
    ),
    container: fc.oneof(
      fc.array(tie('value'), { maxLength: 5 }).map((xs) => `[${xs.join(',')}]`),
      (unique
        ? fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 5, selector: ([k]) => k })
        : fc.array(fc.tuple(key, tie('value')), { maxLength: 5 })
      ).map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    ),
  })).container;
}

describe('JSON with the caller’s number texts', () => {
  it('parses to the same values as JSON.parse', () => {
    fc.assert(
      fc.property(jsonText(false), (text) => {
        expect(parseJson(text).value).toEqual(JSON.parse(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('writes back exactly the text it read, every number as written', () => {
    fc.assert(
      fc.property(jsonText(true), (text) => {
        const parsed = parseJson(text);
        expect(stringifyJson(parsed.value, parsed.texts)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps nothing and changes nothing for text whose numbers a double gives back', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify({ v });
        const parsed = parseJson(text);
        expect(parsed.texts).toBeUndefined();
        expect(stringifyJson(parsed.value, parsed.texts)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('writes a copy without prototypes back with the same digits, since texts go by position', () => {
    fc.assert(
      fc.property(jsonText(true), (text) => {
        const copy = withoutPrototypes(parseJson(text));
        expect(stringifyJson(copy.value, copy.texts)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps the text of a repeated key’s last value only', () => {
    const parsed = parseJson('{"a":{"b":1e400},"a":[1.50],"c":-0,"c":1}');
    expect(stringifyJson(parsed.value, parsed.texts)).toBe('{"a":[1.50],"c":1}');
  });

  it('writes a number by value once the double at its place is another', () => {
    const parsed = parseJson('{"a":1.50,"b":[2.0]}');
    const value = parsed.value as { a: number; b: number[] };
    value.a = 2;
    value.b[0] = 3;
    expect(stringifyJson(value, parsed.texts)).toBe('{"a":2,"b":[3]}');
  });

  it('says a value differs from its double exactly when the decimals differ (BigInt oracle)', () => {
    /** A decimal text as an exact rational m × 10^e, compared after scaling. */
    const rational = (t: string): [bigint, number] => {
      const [mant, exp = '0'] = t.toLowerCase().split('e');
      const [int, frac = ''] = mant!.split('.');
      return [BigInt(`${int}${frac}`.replace(/^(-?)0+(?=\d)/, '$1')), Number(exp) - frac.length];
    };
    const same = (a: string, b: string): boolean => {
      const [ma, ea] = rational(a);
      const [mb, eb] = rational(b);
      const e = Math.min(ea, eb);
      return ma * 10n ** BigInt(ea - e) === mb * 10n ** BigInt(eb - e);
    };
    fc.assert(
      fc.property(numberText, (t) => {
        const n = Number(t);
        expect(differsFromDouble(t)).toBe(!Number.isFinite(n) || !same(t, String(n)));
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('looks for odd numbers outside strings only, escaped quotes included', () => {
    expect(
      mayHoldOddNumber('{"a":"1e5 -0 1.50 12345678901234567","b\\"":"\\"1E2","c":[1,2.5]}'),
    ).toBe(false);
    for (const odd of [
      '-0',
      '1e5',
      '2E-3',
      '1.50',
      '0.0000001',
      '1234567890123456',
      '1.234567890123456',
    ])
      expect(mayHoldOddNumber(`{"s":"\\\\","n":[0,${odd}]}`), odd).toBe(true);
  });

  it('tells values a double cannot hold from texts that only look different', () => {
    expect(
      ['9007199254740993', '1e400', '-1e400', '1e-400', '0.10000000000000000001'].map(
        differsFromDouble,
      ),
    ).toEqual([true, true, true, true, true]);
    expect(
      ['9007199254740992', '1.50', '-0', '1E2', '0.1', '1e21', '0e999', '0.0000001'].map(
        differsFromDouble,
      ),
    ).toEqual([false, false, false, false, false, false, false, false]);
  });
});
