/**
 * README.md and docs/ stand on their own: every relative link and every path they
 * name in backticks points at a file of this repository, and nothing points outside it
 * (a reader of the npm package or a fork has no ../shared/).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Relative targets of markdown links, without #anchors; URLs and pure anchors left out. */
function linkTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe.each(DOCS)('%s', (doc) => {
  const text = readFileSync(join(ROOT, doc), 'utf8');

  it('links only to files that exist inside the repository', () => {
    const outside: string[] = [];
    const missing: string[] = [];
    for (const target of linkTargets(text)) {
      const file = resolve(ROOT, dirname(doc), target);
      if (relative(ROOT, file).startsWith('..')) outside.push(target);
      else if (!existsSync(file)) missing.push(target);
    }
    expect({ outside, missing }).toEqual({ outside: [], missing: [] });
  });

  it('names no path above the repository', () => {
    expect(text.match(/(?:^|[\s`'"(])\.\.\/\S*/gm) ?? []).toEqual([]);
  });
});
