import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayBeJson } from '../../src/json/may-be-json.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_207);

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** JSON's own whitespace, and a few characters that only look like it. */
const padding = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\v') });

describe('mayBeJson: the shape check before a tool text is tried as JSON', () => {
  it('never says no to a text JSON.parse accepts, whatever JSON whitespace surrounds it', () => {
    const jsonText = fc
      .tuple(
        fc.jsonValue(),
        fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r') }),
        fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r') }),
        fc.boolean(),
      )
      .map(
        ([v, before, after, pretty]) =>
          `${before}${JSON.stringify(v, null, pretty ? 2 : 0)}${after}`,
      );
    fc.assert(
      fc.property(jsonText, (text) => {
        expect(parses(text)).toBe(true);
        expect(mayBeJson(text)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('says no only to texts that JSON.parse refuses: prose, logs, and near-misses of JSON', () => {
    const nearJson = fc
      .tuple(
        fc.jsonValue(),
        padding,
        padding,
        fc.string({ maxLength: 3 }),
        fc.string({ maxLength: 3 }),
      )
      .map(([v, a, b, pre, post]) => `${a}${pre}${JSON.stringify(v)}${post}${b}`);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), nearJson), (text) => {
        if (!mayBeJson(text)) expect(parses(text)).toBe(false);
      }),
      { numRuns: RUNS, seed: SEED + 1 },
    );
  });

  it('turns away the usual tool prose without trying it', () => {
    for (const prose of [
      'Echo: hello',
      'Created file a.txt',
      '[INFO] started',
      '',
      '   ',
      'true story',
      '{draft}.',
    ])
      expect(mayBeJson(prose), prose).toBe(false);
    for (const json of ['{}', ' [1] ', '"x"', '-1', '0', 'true', 'false', 'null', '\n{"a":1}\r\n'])
      expect(mayBeJson(json), json).toBe(true);
  });
});
