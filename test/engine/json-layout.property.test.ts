import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/json/json-depth.js';
import { layoutOf } from '../../src/json/json-layout.js';

const piece = fc.constantFrom(
  '[',
  ']',
  '{',
  '}',
  '"',
  '\\',
  '\\"',
  'a',
  ',',
  ':',
  '1',
  ' ',
  '\n',
  '\t',
);

/** Whitespace between tokens, read character by character outside strings. */
function spacedOutside(text: string): boolean {
  let inString = false;
  for (const ch of text) {
    if (ch === '"') inString = !inString;
    else if (!inString && /[ \t\n\r]/.test(ch)) return true;
  }
  return false;
}

describe('the layout of a JSON text', () => {
  it('judges depth as the depth scan does, for any text, JSON or not', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: piece, maxLength: 60 }),
        fc.integer({ min: 0, max: 6 }),
        (t, max) => {
          expect(layoutOf(t, max).kind === 'too-deep').toBe(nestsDeeperThan(t, max));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('calls a text compact only when it holds no backslash and no whitespace between tokens', () => {
    fc.assert(
      fc.property(fc.string({ unit: piece, maxLength: 60 }), (t) => {
        const layout = layoutOf(t, 1000);
        if (layout.kind !== 'compact') return;
        const kept = t.slice(layout.start, layout.end);
        expect(kept).not.toContain('\\');
        expect(spacedOutside(kept)).toBe(false);
        expect(t.trim()).toBe(kept);
      }),
      { numRuns: 20_000 },
    );
  });

  it('keeps any compact serialization without escapes whole, trimming only the space around it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const json = JSON.stringify(v);
        const text = `\n ${json}\r\n`;
        const layout = layoutOf(text, 1000);
        if (json.includes('\\')) expect(layout.kind).toBe('spaced');
        else expect(layout).toEqual({ kind: 'compact', start: 2, end: 2 + json.length });
      }),
      { numRuns: 5_000 },
    );
  });

  it('finds spaces between tokens anywhere, and not inside strings', () => {
    expect(layoutOf('{"a": 1}', 10).kind).toBe('spaced');
    expect(layoutOf('[1,\n2]', 10).kind).toBe('spaced');
    expect(layoutOf('{"a b":"c d"}', 10)).toEqual({ kind: 'compact', start: 0, end: 13 });
    expect(layoutOf('{"a":"\\u0041"}', 10).kind).toBe('spaced');
    expect(layoutOf(`${'['.repeat(513)}${']'.repeat(513)}`, 512).kind).toBe('too-deep');
    expect(layoutOf(JSON.stringify({ a: '['.repeat(600) }), 512).kind).toBe('compact');
  });
});
