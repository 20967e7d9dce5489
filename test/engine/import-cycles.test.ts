/**
 * A file that cannot be read without its sibling is one concept cut in two
 * (architecture.md, habit 8): the MCP projection's modules import each other in one
 * direction only. Reads the relative imports of src/projection/mcp and looks for a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../src/projection/mcp');

function importsOf(file: string): string[] {
  const text = readFileSync(join(DIR, file), 'utf8');
  return [...text.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`);
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

describe('the MCP projection modules', () => {
  it('import each other without a cycle', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    expect(findCycle(graph)).toBeUndefined();
  });
});
