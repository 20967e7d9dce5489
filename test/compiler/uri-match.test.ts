/**
 * The resource template matcher (src/compiler/uri-match.ts): one answer per URI, work linear
 * in the URI for the shapes that made the old backtracking expression quadratic or
 * cubic, the 2 KiB bound in characters, and the OpenAPI pattern holding exactly the URIs
 * the matcher matches.
 */
import { describe, expect, it } from 'vitest';
import {
  compileUriPlan,
  matchUri,
  MAX_URI_CHARACTERS,
  templatePattern,
  type MatchWork,
} from '../../src/compiler/uri-match.js';
import { parseUriTemplate } from '../../src/compiler/uri-template.js';

function plan(template: string) {
  const t = parseUriTemplate(template);
  if (!t.ok) throw new Error(t.reason);
  return compileUriPlan(t.literals);
}

function stepsFor(template: string, uri: string): number {
  const work: MatchWork = { steps: 0 };
  matchUri(plan(template), uri, work);
  return work.steps;
}

describe('one answer per URI', () => {
  it('gives each variable the shortest text up to the literal after it, the last one the rest', () => {
    expect(matchUri(plan('t://{a}-{b}'), 't://x-y-z')).toEqual(['x', 'y-z']);
    expect(matchUri(plan('grid://{x}.{y}.{z}'), 'grid://1.2.3.4')).toEqual(['1', '2', '3.4']);
    expect(matchUri(plan('t://{a}ab{b}.json'), 't://xaab.c.json')).toEqual(['xa', '.c']);
  });

  it('lets a value start with its own literal, as a value holds at least one character', () => {
    expect(matchUri(plan('t://{a}-{b}'), 't://--y')).toEqual(['-', 'y']);
  });

  it('never puts /, ? or # in a value and never looks past one for a later literal', () => {
    expect(matchUri(plan('t://{a}-{b}'), 't://a/b-c')).toBeUndefined();
    expect(matchUri(plan('t://{a}-{b}'), 't://a-b?c')).toBeUndefined();
    expect(matchUri(plan('t://{a}/{b}'), 't://a/b/c')).toBeUndefined();
    expect(matchUri(plan('t://{a}/x/{b}'), 't://a/x/b')).toEqual(['a', 'b']);
  });

  it('refuses empty values and a last literal that is not at the end', () => {
    expect(matchUri(plan('t://{a}-{b}'), 't://-y')).toBeUndefined();
    expect(matchUri(plan('t://{a}-{b}'), 't://x-')).toBeUndefined();
    expect(matchUri(plan('t://{a}.json'), 't://.json')).toBeUndefined();
    expect(matchUri(plan('t://{a}.json'), 't://x.json?')).toBeUndefined();
    expect(matchUri(plan('t://{a}-{b}-'), 't://x-')).toBeUndefined();
  });
});

describe('work linear in the URI', () => {
  // The shapes the red team found: separators the variables may hold, then a `/`.
  const hostile = [
    {
      template: 'shop://orders/{customer}-{order}',
      uri: (n: number) => `shop://orders/${'-'.repeat(n)}/`,
    },
    { template: 'grid://{x}.{y}.{z}', uri: (n: number) => `grid://${'.'.repeat(n)}/` },
    { template: 'grid://{x}.{y}.{z}', uri: (n: number) => `grid://${'.'.repeat(n)}` },
    { template: 't://{a}ab{b}ab{c}', uri: (n: number) => `t://${'a'.repeat(n)}` },
    { template: 't://{a}ab{b}ab{c}', uri: (n: number) => `t://${'ab'.repeat(n / 2)}#` },
    { template: 't://{a}-{b}.{c}-{d}', uri: (n: number) => `t://${'-.'.repeat(n / 2)}` },
  ];

  it('examines at most (1 + the longest literal) characters per URI character, at every length', () => {
    for (const { template, uri } of hostile) {
      const longest = Math.max(...plan(template).literals.map((l) => l.length));
      for (const n of [64, 256, 1024, 2000]) {
        const u = uri(n);
        expect(stepsFor(template, u), `${template} against ${n}`).toBeLessThanOrEqual(
          (1 + longest) * u.length,
        );
      }
    }
  });

  it('does four times the work for a URI four times as long, not sixteen or sixty-four', () => {
    for (const { template, uri } of hostile) {
      const small = stepsFor(template, uri(500));
      const large = stepsFor(template, uri(2000));
      expect(large, template).toBeLessThanOrEqual(4.1 * small + 64);
    }
  });

  it('does no work on a URI over the bound, however long', () => {
    expect(stepsFor('grid://{x}.{y}.{z}', `grid://${'.'.repeat(4 * 1024 * 1024)}/`)).toBe(0);
  });
});

describe('the 2 KiB bound', () => {
  const p = plan('t://{a}');
  const uriOf = (n: number, fill = 'x') => `t://${fill.repeat(n - 4)}`;

  it('matches a URI of 2048 characters and not one of 2049', () => {
    expect(MAX_URI_CHARACTERS).toBe(2048);
    expect(matchUri(p, uriOf(2048))).toBeDefined();
    expect(matchUri(p, uriOf(2049))).toBeUndefined();
  });

  it('counts Unicode characters, not UTF-16 units or UTF-8 bytes', () => {
    // 2048 characters, of which 2044 take two UTF-16 units and four UTF-8 bytes each.
    expect(matchUri(p, uriOf(2048, '😀'))).toBeDefined();
    expect(matchUri(p, uriOf(2049, '😀'))).toBeUndefined();
    expect(matchUri(p, uriOf(2048, 'é'))).toBeDefined();
  });

  it('refuses at load a template that could only serve longer URIs', () => {
    const t = parseUriTemplate(`t://${'x'.repeat(2044)}/{a}`);
    expect(t.ok).toBe(false);
    expect(parseUriTemplate(`t://${'x'.repeat(2042)}/{a}`).ok).toBe(true);
  });
});

describe('the OpenAPI pattern', () => {
  const templates = [
    't://{a}-{b}',
    'grid://{x}.{y}.{z}',
    't://{a}ab{b}.json',
    't://{a}/x/{b}',
    't://{a}-{b}-',
    't://{a}]{b}[{c}',
    'docs://fixed',
  ];
  const alphabet = ['a', 'b', 'x', '-', '.', '/', '?', '#', ']', '[', 'j', 's', 'o', 'n'];

  it('holds exactly the URIs the matcher matches (3,000 drawn URIs per template)', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const text = (max: number) => {
      let s = '';
      for (let k = random(max + 1); k > 0; k--) s += alphabet[random(alphabet.length)];
      return s;
    };
    const disagreements: string[] = [];
    for (const template of templates) {
      const t = parseUriTemplate(template);
      if (!t.ok) throw new Error(t.reason);
      const regex = new RegExp(templatePattern(t.literals), 'u');
      const p = compileUriPlan(t.literals);
      let matches = 0;
      for (let i = 0; i < 3000; i++) {
        // The template filled with drawn values (some holding its literals, some empty,
        // some a forbidden character), or its first literal followed by drawn text.
        const uri =
          random(4) === 0
            ? t.literals[0] + text(10)
            : t.literals.reduce((u, l, k) => (k === 0 ? l : `${u}${text(4)}${l}`), '');
        const matched = matchUri(p, uri) !== undefined;
        if (regex.test(uri) !== matched) disagreements.push(`${template} against ${uri}`);
        if (matched) matches++;
      }
      // Not vacuous: a share of the drawn URIs do match.
      expect(matches, template).toBeGreaterThan(100);
    }
    expect(disagreements).toEqual([]);
  });
});
