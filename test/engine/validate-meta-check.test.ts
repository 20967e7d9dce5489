/**
 * The gateway compiles validators without the meta-schema check (validate.ts, createAjv):
 * a schema ajv cannot compile still fails at warm-up, so the grant answers INTERNAL as
 * before, and `check` (schemaProblems) still refuses it before deployment.
 */
import { describe, expect, it } from 'vitest';
import { createAjv, prepareValidator, schemaProblems } from '../../src/engine/guards/validate.js';
import type { ToolDescriptor } from '../../src/compiler/descriptor.js';
import { compileSpecFile } from '../../src/compiler/load-spec.js';

describe('validators compiled without the meta-schema check', () => {
  it('still refuse at warm-up a schema ajv cannot compile, which check reports too', async () => {
    const { compiled } = await compileSpecFile('specs/github-issues.mcp.kdl');
    const broken = {
      ...compiled!.tools[0]!,
      name: 'broken',
      inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } },
    } as ToolDescriptor;
    const validate = prepareValidator(
      createAjv(false, { metaCheck: false }),
      createAjv(true, { metaCheck: false }),
      broken,
    );
    expect(() => validate.warm()).toThrow(/strnig/);
    expect(schemaProblems([broken]).map((p) => p.tool)).toEqual(['broken']);
  });

  it('judge calls as the meta-checked ones do', async () => {
    const { compiled } = await compileSpecFile('specs/github-issues.mcp.kdl');
    const d = compiled!.tools.find((t) => t.name === 'list_issues')!;
    const unchecked = prepareValidator(
      createAjv(false, { metaCheck: false }),
      createAjv(true, { metaCheck: false }),
      d,
    );
    const checked = prepareValidator(createAjv(false), createAjv(true), d);
    for (const input of [
      { owner: 'acme', repo: 'rocket' },
      { owner: 'acme', repo: 'rocket', state: 'closed', per_page: 5 },
      { owner: 'acme' },
      { owner: 'acme', repo: 'rocket', per_page: 'ten', extra: true },
    ])
      expect(unchecked({ ...input })).toEqual(checked({ ...input }));
  });
});
