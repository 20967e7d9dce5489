/**
 * A comment that cites a document sends a reader there: `(security.md, "Path values")`
 * must name a file in docs/ and one of its headings, or the reader finds nothing. Renamed
 * headings and documents that live outside the repository are how citations went stale
 * before; this keeps them true.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');

/** Every .ts/.mjs/.js file under the folders whose comments cite docs. */
function sourceFiles(): string[] {
  const out: string[] = [];
  for (const top of ['src', 'test', 'bench', 'soak', 'scripts']) {
    let names: string[];
    try {
      names = readdirSync(join(ROOT, top), { recursive: true }) as string[];
    } catch {
      continue;
    }
    for (const n of names)
      if (/\.(ts|mjs|js)$/.test(n) && !n.includes('node_modules') && !n.includes('fixtures'))
        out.push(join(top, n));
  }
  return out;
}

/** A file's text with comment continuation marks removed, so a citation wrapped over lines reads whole. */
function flattened(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/\n\s*(\*|\/\/)\s?/g, ' ');
}

function headingsOf(doc: string): Set<string> {
  const text = readFileSync(join(DOCS, doc), 'utf8');
  return new Set([...text.matchAll(/^#+\s+(.+?)\s*$/gm)].map((m) => m[1]!));
}

/** The design documents a comment may name; README.md and the like are not docs/ files. */
const DOC_NAME =
  /\b((?:spec-language|security|protocol|telemetry|architecture|errors|reliability|observability)\.md)\b/g;
const CITATION = /\b([a-z][a-z-]*\.md),\s+"([^"]+)"/g;

describe('citations of docs in code comments', () => {
  const files = sourceFiles();
  const docs = new Set(readdirSync(DOCS));

  it('name a document the repository holds, and one of its headings', () => {
    const broken: string[] = [];
    for (const file of files) {
      if (file === join('test', 'docs', 'citations.test.ts')) continue;
      for (const m of flattened(file).matchAll(CITATION)) {
        const [, doc, heading] = m as unknown as [string, string, string];
        if (!docs.has(doc)) broken.push(`${file}: ${doc} is not in docs/`);
        else if (!headingsOf(doc).has(heading.replace(/\s+/g, ' ')))
          broken.push(`${file}: ${doc} has no heading "${heading}"`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only documents the repository holds, also where they cite no heading', () => {
    const missing: string[] = [];
    for (const file of files) {
      if (file === join('test', 'docs', 'citations.test.ts')) continue;
      for (const m of flattened(file).matchAll(DOC_NAME))
        if (!docs.has(m[1]!)) missing.push(`${file}: ${m[1]!}`);
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('never cite a numbered habit, which moves when the list changes', () => {
    const numbered = files.filter((f) => /architecture\.md,\s+(habit|\d)/.test(flattened(f)));
    expect(numbered).toEqual([]);
  });

  it('are found at all, so the checks above read something', () => {
    const cited = files.filter((f) => [...flattened(f).matchAll(CITATION)].length > 0);
    expect(cited.length).toBeGreaterThan(20);
  });
});
