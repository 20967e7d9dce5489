/**
 * A file that cannot be read without its sibling is one concept cut in two: modules
 * import each other in one direction only. Reads the relative imports of every file
 * under src/ and looks for a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** Every .ts file under src/, as paths relative to it. */
function sourceFiles(): string[] {
  return (readdirSync(SRC, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => normalize(f));
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) =>
    relative(SRC, join(SRC, dirname(file), `${m[1]}.ts`)),
  );
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    if (state.get(node) === 'done') return undefined;
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the modules of src/', () => {
  it('import each other without a cycle', () => {
    const files = sourceFiles();
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    expect(findCycle(graph)).toBeUndefined();
  });

  it('are all read, so a cycle anywhere would be seen', () => {
    const files = sourceFiles();
    expect(files).toContain(join('projection', 'mcp', 'dispatch.ts'));
    expect(files).toContain(join('compiler', 'kdl-reader.ts'));
    // Every relative import resolves to a file the walk read.
    const known = new Set(files);
    for (const f of files)
      for (const dep of importsOf(f)) expect(known, `${f} → ${dep}`).toContain(dep);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCycle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});
