import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/json/json-depth.js';

/** The scan as it was: every character read, a backslash in a string skips the next. */
function byCharacter(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

const piece = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\\\\', 'a', ',', ':', '1');

describe('the nesting depth of a text', () => {
  it('is judged as a character-by-character scan judges it, for any text, JSON or not', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: piece, maxLength: 60 }),
        fc.integer({ min: 0, max: 6 }),
        (t, max) => {
          expect(nestsDeeperThan(t, max)).toBe(byCharacter(t, max));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('counts brackets inside strings as text, at any depth bound', () => {
    const inStrings = JSON.stringify({ a: '['.repeat(600), b: ['{'.repeat(600)] });
    expect(nestsDeeperThan(inStrings, 512)).toBe(false);
    expect(nestsDeeperThan(`${'['.repeat(513)}${']'.repeat(513)}`, 512)).toBe(true);
    expect(nestsDeeperThan(`${'['.repeat(512)}${']'.repeat(512)}`, 512)).toBe(false);
    const wide = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i, s: '"\\' })));
    expect(nestsDeeperThan(wide, 512)).toBe(false);
    expect(nestsDeeperThan(`["${'\\"'.repeat(3)}", ${'{'.repeat(600)}`, 512)).toBe(true);
  });
});
