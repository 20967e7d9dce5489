/**
 * The toolset node (spec-language.md, "Toolsets"): members resolved at load, in the
 * spec's order, globs expanded once. The refusals are rows of bad-specs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';

const SPEC = `
wrap "sets" version="1.0.0"
base-url "http://127.0.0.1:9"
can list issues {
    describe "d"
    path "/issues"
}
can read readme {
    describe "d"
    path "/readme"
}
can get issue {
    describe "d"
    path "/issues/{id}" {
        id "integer"
    }
}
can read license {
    describe "d"
    path "/license"
}
resource "docs://handbook" text="be kind"
resource "docs://issues/{id}" from="get_issue"
prompt "triage" {
    message "user" "triage"
}
`;

function compile(toolsets: string) {
  const result = compileSpecText(`${SPEC}${toolsets}`, 'sets.mcp.kdl');
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  expect(errors).toEqual([]);
  return result.compiled!;
}

describe('toolset members', () => {
  it('are listed in the order of the spec, not the order the toolset names them', () => {
    const spec = compile(`
toolset "triage" {
    describe "Read and triage issues."
    tools "get_issue" "list_issues"
    resources "docs://issues/{id}" "docs://handbook"
    prompts "triage"
}
`);
    expect(spec.toolsets).toEqual([
      {
        name: 'triage',
        description: 'Read and triage issues.',
        tools: ['list_issues', 'get_issue'],
        resources: ['docs://handbook', 'docs://issues/{id}'],
        prompts: ['triage'],
        source: { file: 'sets.mcp.kdl', line: 28, column: 1 },
      },
    ]);
  });

  it('expand a * glob to every tool it matches, once, and join several tools lines', () => {
    const spec = compile(`
toolset "library" {
    tools "read_*"
    tools "read_license" "list_*"
}
`);
    expect(spec.toolsets[0]!.tools).toEqual(['list_issues', 'read_readme', 'read_license']);
    expect(spec.toolsets[0]!.description).toBeUndefined();
  });

  it('may hold only resources or only prompts', () => {
    const spec = compile(`
toolset "docs" {
    resources "docs://handbook"
}
toolset "prompts" {
    prompts "triage"
}
`);
    expect(spec.toolsets.map((t) => [t.name, t.tools, t.resources, t.prompts])).toEqual([
      ['docs', [], ['docs://handbook'], []],
      ['prompts', [], [], ['triage']],
    ]);
  });

  it('are frozen with the rest of the compiled spec', () => {
    const spec = compile(`
toolset "all" {
    tools "*"
}
`);
    expect(Object.isFrozen(spec.toolsets[0]!.tools)).toBe(true);
    expect(spec.toolsets[0]!.tools).toHaveLength(4);
  });
});

describe('limits list-tokens', () => {
  it('defaults to 20000 and takes the spec value', () => {
    expect(compile('').listTokens).toBe(20_000);
    expect(compile('limits list-tokens=5000\n').listTokens).toBe(5000);
    expect(compile('').toolsets).toEqual([]);
  });

  it('refuses a value that is not a positive integer', () => {
    const result = compileSpecText(`${SPEC}limits list-tokens=0\n`, 'sets.mcp.kdl');
    expect(result.compiled).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toContain('SPEC_VALUE_TYPE');
  });
});
