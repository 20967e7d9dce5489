import { describe, expect, it } from 'vitest';
import { compileSpecFile, compileSpecText } from '../../src/compiler/load-spec.js';
import { createAjv, prepareValidator, schemaProblems } from '../../src/engine/guards/validate.js';
import type { ToolDescriptor } from '../../src/compiler/descriptor.js';

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
    } as ToolDescriptor;
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

  it('judges grants with the same arguments alike, each naming itself, with one schema compiled once', () => {
    const grant = (verb: string) => `can ${verb} item {
    describe "d"
    path "/items/{id}" {
        id "integer" min=1
    }
}
`;
    const { compiled } = compileSpecText(
      `wrap "t" version="1"\nbase-url "https://api.example.com"\n${grant('get')}${grant('delete')}`,
      'twins.mcp.kdl',
    );
    const [get, del] = compiled!.tools;
    const fast = createAjv(false);
    const full = createAjv(true);
    const compiles = { count: 0 };
    const compile = fast.compile.bind(fast);
    fast.compile = ((schema: object) => {
      compiles.count += 1;
      return compile(schema);
    }) as typeof fast.compile;
    const a = prepareValidator(fast, full, get!);
    const b = prepareValidator(fast, full, del!);
    a.warm();
    b.warm();
    expect(compiles.count).toBe(1);
    expect(a({ id: 1 })).toBeUndefined();
    expect(b({ id: 0 })?.message).toMatch(/^invalid arguments for delete_item: id must be >= 1/);
    expect(a({ id: 'x' })?.message).toMatch(/^invalid arguments for get_item: id must be integer/);
    expect(b({ id: 2 })).toBeUndefined();
  });

  it('refuses for check each grant whose schema ajv refuses, shared schema or not', async () => {
    const { compiled } = await compileSpecFile('specs/github-issues.mcp.kdl');
    const broken = (name: string) =>
      ({
        ...compiled!.tools[0]!,
        name,
        inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } },
      }) as ToolDescriptor;
    const problems = schemaProblems([broken('one'), compiled!.tools[1]!, broken('two')]);
    expect(problems.map((p) => p.tool)).toEqual(['one', 'two']);
    expect(problems[1]!.message).toBe(problems[0]!.message);
  });
});
