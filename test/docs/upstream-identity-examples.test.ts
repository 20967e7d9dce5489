/**
 * The examples of docs/upstream-identity.md and README's "Call as the user" are specs the
 * compiler accepts: each kdl block, with a `wrap` line and one grant per upstream it
 * declares (the blocks show upstreams, not grants), compiles without an error. A reader
 * who copies one gets a spec that loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { formatDiagnostic } from '../../src/compiler/diagnostics.js';

const ROOT = join(import.meta.dirname, '../..');

function kdlBlocks(text: string): string[] {
  return [...text.matchAll(/```kdl\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The block as a whole spec: a name, an API key when it has no `access`, one grant per upstream. */
function asSpec(block: string): string {
  const upstreams = [...block.matchAll(/^upstream "([a-z][a-z0-9-]*)"/gm)].map((m) => m[1]!);
  const access = /^access\b/m.test(block)
    ? ''
    : 'access {\n    api-key env="DOC_KEYS" scopes="read"\n}\n';
  const grants = upstreams.map(
    (u) =>
      `can read ${u} {\n    describe "Read ${u}."\n    upstream "${u}"\n    path "/things"\n}\n`,
  );
  return `wrap "doc-example" version="1.0.0"\n${block}\n${access}${grants.join('')}`;
}

function errorsOf(spec: string): string[] {
  const result = compileSpecText(spec, 'doc-example.mcp.kdl');
  return result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
}

describe('the upstream identity examples', () => {
  const doc = readFileSync(join(ROOT, 'docs/upstream-identity.md'), 'utf8');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Call as the user'));
  const blocks = [
    ...kdlBlocks(doc).map((b, i) => [`docs/upstream-identity.md block ${i + 1}`, b] as const),
    ['README.md "Call as the user"', kdlBlocks(section)[0]!] as const,
  ];

  it('are found, one per auth kind and the README one', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it.each(blocks)('%s compiles as a spec', (_where, block) => {
    expect(errorsOf(asSpec(block))).toEqual([]);
  });
});
