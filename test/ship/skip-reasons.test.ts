/**
 * A skipped test says why in every run (test/helpers/skip-reason.ts): each `skipIf`
 * of the suite goes through skipBecause, directly or through a constant set from it,
 * and no test is skipped unconditionally (`it.skip`, `describe.skip`), which says nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('skipped tests', () => {
  it('each say why, through skipBecause; none is skipped unconditionally', () => {
    const silent: string[] = [];
    for (const file of testFiles(join(root, 'test'))) {
      const text = readFileSync(file, 'utf8');
      const name = relative(root, file);
      for (const m of text.matchAll(/\b(?:it|test|describe)\.skip\(/g))
        silent.push(`${name}: ${m[0]}`);
      for (const m of text.matchAll(/\.(?:skipIf|runIf)\(\s*([A-Za-z_$][\w$]*)?/g)) {
        const head = m[1];
        const explained =
          head === 'skipBecause' ||
          (head !== undefined && new RegExp(`\\b${head}\\s*=\\s*skipBecause\\(`).test(text));
        if (!explained) silent.push(`${name}: ${text.slice(m.index, m.index + 60)}`);
      }
    }
    expect(silent).toEqual([]);
  });
});
