import { describe, expect, it } from 'vitest';
import { compileSpecFile, compileSpecText } from '../../src/spec/load-spec.js';
import { createAjv, prepareValidator, schemaProblems } from '../../src/engine/guards/validate.js';
import type { Descriptor } from '../../src/spec/descriptor.js';

describe('input schema compilation', () => {
  it('finds no problem in the example specs (check runs this before deployment)', async () => {
    for (const spec of ['github-issues', 'payments-form', 'orders-db', 'demo']) {
      const { compiled } = await compileSpecFile(`specs/${spec}.mcp.kdl`);
      expect(schemaProblems(compiled!.tools)).toEqual([]);
    }
  });

  it('names the tool whose schema ajv refuses', async () => {
    const { compiled } = await compileSpecFile('specs/github-issues.mcp.kdl');
    const broken = {
      ...compiled!.tools[0]!,
      name: 'broken',
      inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } },
    } as Descriptor;
    const problems = schemaProblems([compiled!.tools[1]!, broken]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.tool).toBe('broken');
  });

  it('compiles a validator on warm-up, and the warmed validator still judges calls', async () => {
    const { compiled } = await compileSpecFile('specs/github-issues.mcp.kdl');
    const d = compiled!.tools.find((t) => t.name === 'get_issue')!;
    const validate = prepareValidator(createAjv(false), createAjv(true), d);
    expect(() => validate.warm()).not.toThrow();
    expect(validate({ owner: 'acme', repo: 'rocket', number: 1 })).toBeUndefined();
    expect(validate({ owner: 'acme', repo: 'rocket', number: '1' })?.code).toBe(
      'INVALID_ARGUMENTS',
    );
  });

  it('bounds integer fields named like schema keywords (default, type) to the safe range', () => {
    const { compiled } = compileSpecText(
      `wrap "t" version="1"
base-url "https://api.example.com"
can list things {
    describe "d"
    path "/things"
    query {
        default "integer"
        type "integer"
    }
}
`,
      'keywords.mcp.kdl',
    );
    const validate = prepareValidator(createAjv(false), createAjv(true), compiled!.tools[0]!);
    expect(validate({ default: 9007199254740991, type: 1 })).toBeUndefined();
    expect(validate({ default: 9007199254740992 })?.message).toContain('default must be <=');
    expect(validate({ type: 9007199254740992 })?.message).toContain('type must be <=');
  });
});
