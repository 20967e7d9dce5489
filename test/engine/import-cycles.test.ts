/**
 * A file that cannot be read without its sibling is one concept cut in two: modules
 * import each other in one direction only. Reads the relative imports of every file
 * under src/ and looks for a cycle.
 *
 * Every kind of import is an edge: static `import … from`, `export … from`, a bare
 * `import '…'`, a dynamic `import('…')` (a lazily loaded module is still a dependency),
 * and `import type`. A type-only circle breaks nothing at run time, but it is the same
 * concept cut in two; the old backend-kinds circle was one: the registry loaded each
 * kind with `import()`, and each kind took its contract from the registry with
 * `import type`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** Every .ts file under src/, as paths relative to it. */
function sourceFiles(): string[] {
  return (readdirSync(SRC, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => normalize(f));
}

const RELATIVE_IMPORTS = [
  /\bfrom '(\.{1,2}\/[^']+)\.js'/g,
  /^\s*import '(\.{1,2}\/[^']+)\.js'/gm,
  /\bimport\(\s*'(\.{1,2}\/[^']+)\.js'\s*\)/g,
];

/** The files `text` (the source of `file`) imports, as paths beside `file`'s. */
function importsIn(file: string, text: string): string[] {
  const specifiers = RELATIVE_IMPORTS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
  return [...new Set(specifiers)].map((s) => normalize(join(dirname(file), `${s}.ts`)));
}

/** Who imports whom, from each file's path and source text. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map([...sources].map(([file, text]) => [file, importsIn(file, text)]));
}

function srcGraph(): Map<string, string[]> {
  const files = sourceFiles();
  return importGraph(new Map(files.map((f) => [f, readFileSync(join(SRC, f), 'utf8')])));
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
    expect(findCycle(srcGraph())).toBeUndefined();
  });

  it('are all read, so a cycle anywhere would be seen', () => {
    const graph = srcGraph();
    expect([...graph.keys()]).toContain(join('projection', 'mcp', 'dispatch.ts'));
    expect([...graph.keys()]).toContain(join('compiler', 'kdl-reader.ts'));
    // A kind's lazily loaded runtime is an edge too.
    expect(graph.get(join('engine', 'backends', 'http', 'http-kind.ts'))).toContain(
      join('engine', 'backends', 'http', 'http-backend.ts'),
    );
    // Every relative import resolves to a file the walk read.
    for (const [f, deps] of graph)
      for (const dep of deps) expect(graph.has(dep), `${f} → ${dep}`).toBe(true);
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

describe('the import graph', () => {
  it('has an edge for every kind of relative import, and none for packages', () => {
    const text = [
      `import { a } from './a.js';`,
      `import type { B } from '../b.js';`,
      `import {\n  c,\n  type C,\n} from './c/c.js';`,
      `export { d } from './d.js';`,
      `import './e.js';`,
      `const f = await import('./f.js');`,
      `const g = () => import(\n  './g.js'\n);`,
      `import { Agent } from 'undici';`,
      `const { parse } = await import('yaml');`,
    ].join('\n');
    expect(importsIn(join('x', 'here.ts'), text).sort()).toEqual(
      ['x/a.ts', 'b.ts', 'x/c/c.ts', 'x/d.ts', 'x/e.ts', 'x/f.ts', 'x/g.ts'].map(normalize).sort(),
    );
  });

  it('would have caught the old backend-kinds circle of a dynamic import and a type import', () => {
    // The imports of the two files as they were before kind.ts and registry.ts.
    const before = new Map([
      [
        'engine/backends/backend-kinds.ts',
        `import type { PreparedBackend } from './backend.js';\n` +
          `export const BACKEND_KINDS = {\n` +
          `  http: async () => (await import('./http/http-backend.js')).createHttpKind,\n` +
          `};`,
      ],
      [
        'engine/backends/http/http-backend.ts',
        `import type { BackendOutcome, PreparedBackend } from '../backend.js';\n` +
          `import type { BackendKind, GrantOf, KindContext } from '../backend-kinds.js';`,
      ],
      ['engine/backends/backend.ts', `import type { CallContext } from '../call-context.js';`],
      ['engine/call-context.ts', ''],
    ]);
    expect(findCycle(importGraph(before))).toEqual(
      [
        'engine/backends/backend-kinds.ts',
        'engine/backends/http/http-backend.ts',
        'engine/backends/backend-kinds.ts',
      ].map(normalize),
    );
  });
});
