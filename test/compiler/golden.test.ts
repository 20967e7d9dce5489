import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSpec } from '../../bench/generate-spec.js';
import { compileSpecFile, compileSpecText } from '../../src/compiler/load-spec.js';
import { toolList } from '../../src/projection/mcp/tool-definition.js';

// Golden files pin spec → descriptors and spec → tools/list. They were reviewed by eye
// when written; regenerate with UPDATE_GOLDEN=1 and review the diff before committing.
const SPECS = 'specs';
const GOLDEN = join('test', 'compiler', 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, value: unknown): void {
  const file = join(GOLDEN, name);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (update || !existsSync(file)) writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

describe('what a model reads before its first call (issue 17)', () => {
  it('the tools/list of github-issues.mcp.kdl, restrict rules included, stays within 8,000 bytes', async () => {
    const { compiled } = await compileSpecFile(join(SPECS, 'github-issues.mcp.kdl'));
    const list = toolList(compiled!.tools);
    expect(Buffer.byteLength(JSON.stringify(list))).toBeLessThanOrEqual(8_000);
    const owner = (list.tools[0]!.inputSchema.properties as Record<string, { enum?: unknown }>)
      .owner;
    expect(owner?.enum).toEqual(['acme', 'acme-labs']);
  });
});

describe('example specs compile to their reviewed golden descriptors', () => {
  const specs = readdirSync(SPECS).filter((f) => f.endsWith('.mcp.kdl'));

  it('has at least three example specs', () => {
    expect(specs.length).toBeGreaterThanOrEqual(3);
  });

  for (const spec of specs) {
    const base = spec.replace(/\.mcp\.kdl$/, '');

    it(`${spec} compiles without errors or warnings`, async () => {
      const result = await compileSpecFile(join(SPECS, spec));
      expect(result.diagnostics).toEqual([]);
      expect(result.compiled).toBeDefined();
    });

    it(`${spec} yields the golden descriptors`, async () => {
      const { compiled } = await compileSpecFile(join(SPECS, spec));
      golden(`${base}.descriptors.json`, compiled);
    });

    it(`${spec} yields the golden tools/list`, async () => {
      const { compiled } = await compileSpecFile(join(SPECS, spec));
      golden(`${base}.tools.json`, toolList(compiled!.tools));
    });

    it(`${spec} descriptors are frozen all the way down`, async () => {
      const { compiled } = await compileSpecFile(join(SPECS, spec));
      const tool = compiled!.tools[0]!;
      expect(Object.isFrozen(compiled)).toBe(true);
      expect(Object.isFrozen(tool.inputSchema)).toBe(true);
      expect(Object.isFrozen(tool.arguments[0])).toBe(true);
      expect(() => {
        (tool as { name: string }).name = 'changed';
      }).toThrow(TypeError);
    });
  }
});

describe("a generated spec's descriptors (issue 40, the compile's cost)", () => {
  // bench/generate-spec.ts's grants come in three shapes that repeat every ten grants
  // (HTTP with query fields, HTTP with a nested body and `set`, sql with params), all
  // under a restrict block; the start-up benches compile thousands of them. The golden
  // file was written by main's build before the compile was made cheaper: the cuts
  // changed nothing of what a grant compiles to.
  it('the 10-grant spec of bench/generate-spec.ts yields the golden descriptors', () => {
    const { compiled, diagnostics } = compileSpecText(generateSpec(10), 'generated-10.mcp.kdl');
    expect(diagnostics).toEqual([]);
    golden('generated-10.descriptors.json', compiled);
  });
});
