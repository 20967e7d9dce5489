import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patternBounds, withoutImpliedLengths } from '../../src/compiler/implied-lengths.js';

describe('length bounds an anchored pattern implies', () => {
  it.each([
    ['^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$', { min: 1, max: 100 }],
    ['^[0-9a-f]{40}$', { min: 40, max: 40 }],
    ['^a\\.b?c{2,3}$', { min: 4, max: 6 }],
    ['^[\\]x]{1,2}?$', { min: 1, max: 2 }],
    ['^😀{2}$', { min: 2, max: 2 }],
  ])('reads %s as %j', (pattern, bounds) => {
    expect(patternBounds(pattern)).toEqual(bounds);
  });

  it.each([
    ['unanchored', '[a-z]{1,3}'],
    ['an unbounded repeat', '^[a-z]+$'],
    ['an open range', '^a{2,}$'],
    ['alternation', '^a|bc$'],
    ['a group', '^(ab){2}$'],
    ['a word boundary (zero width)', '^a\\bb$'],
    ['an escaped dollar at the end', '^a\\$'],
  ])('claims nothing for %s', (_what, pattern) => {
    expect(patternBounds(pattern)).toBeUndefined();
  });

  it('holds for every text the pattern matches', () => {
    for (const source of ['^[a-z][a-z0-9-]{0,9}$', '^x?[0-9]{2,4}\\.?$', '^.{1,5}$']) {
      const bounds = patternBounds(source)!;
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(source, 'u')), (s) => {
          const n = [...s].length;
          expect(n).toBeGreaterThanOrEqual(bounds.min);
          expect(n).toBeLessThanOrEqual(bounds.max);
        }),
        { numRuns: 200, seed: 17 },
      );
    }
  });
});

describe('withoutImpliedLengths', () => {
  it('drops a bound every enum value meets, keeps one some value breaks', () => {
    expect(
      withoutImpliedLengths({ type: 'string', minLength: 1, maxLength: 4, enum: ['ab', 'abcde'] }),
    ).toEqual({ type: 'string', maxLength: 4, enum: ['ab', 'abcde'] });
  });

  it('drops the bounds a pattern implies, also through allOf, and keeps a looser pattern’s', () => {
    expect(
      withoutImpliedLengths({
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        pattern: '^[a-z]*$',
        allOf: [{ pattern: '^[a-z]{2,8}$' }],
      }),
    ).toEqual({ type: 'string', pattern: '^[a-z]*$', allOf: [{ pattern: '^[a-z]{2,8}$' }] });
    expect(withoutImpliedLengths({ type: 'string', minLength: 3, pattern: '^a{1,5}$' })).toEqual({
      type: 'string',
      minLength: 3,
      pattern: '^a{1,5}$',
    });
  });

  it('looks into the items of a scalar array', () => {
    expect(
      withoutImpliedLengths({
        type: 'array',
        items: { type: 'string', maxLength: 9, enum: ['a'] },
      }),
    ).toEqual({ type: 'array', items: { type: 'string', enum: ['a'] } });
  });
});
