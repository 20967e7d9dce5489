import { describe, expect, it } from 'vitest';
import type { BodyFieldDescriptor } from '../../src/compiler/descriptor.js';
import type { GrantOf } from '../../src/engine/backends/kind.js';
import { driftLine, toolDrift } from '../../src/engine/backends/mcp/tool-drift.js';

function grant(
  tool: string,
  fields: BodyFieldDescriptor[],
  setArgs: GrantOf<'mcp'>['backend']['setArgs'] = [],
): GrantOf<'mcp'> {
  return {
    name: 'search_issues',
    arguments: [],
    backend: {
      kind: 'mcp',
      server: 'tracker',
      tool,
      fields,
      setArgs,
      timeoutMs: 1,
      retryOnNewSession: true,
    },
    source: { file: 'specs/t.mcp.kdl', line: 12, column: 1 },
  } as unknown as GrantOf<'mcp'>;
}

const TOOLS = [
  {
    name: 'search_issues',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        perPage: { type: 'integer' },
        owner: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' } },
        maybe: { type: ['string', 'null'] },
        anything: {},
      },
    },
  },
];

describe('tool drift', () => {
  it('finds nothing when every declared argument is in the schema with a matching type', () => {
    const g = grant(
      'search_issues',
      [
        { name: 'query', upstream: 'query', type: 'string' },
        { name: 'limit', upstream: 'perPage', type: 'integer' },
        { name: 'labels', upstream: 'labels', type: 'string[]' },
        { name: 'maybe', upstream: 'maybe', type: 'string' },
        { name: 'anything', upstream: 'anything', type: 'boolean' },
      ],
      [{ path: ['owner'], value: 'acme' }],
    );
    expect(toolDrift('tracker', [g], TOOLS)).toEqual([]);
  });

  it('reports a tool the upstream does not list, with the grant source', () => {
    const [p] = toolDrift('tracker', [grant('gone', [])], TOOLS);
    expect(driftLine(p!)).toBe(
      'specs/t.mcp.kdl:12: grant search_issues: mcp-server tracker does not list the tool "gone"',
    );
  });

  it('reports an argument the schema lacks and one it types otherwise, by upstream name', () => {
    const g = grant(
      'search_issues',
      [
        { name: 'limit', upstream: 'perPage', type: 'string' },
        { name: 'q', upstream: 'q', type: 'string' },
      ],
      [{ path: ['team'], value: 'x' }],
    );
    expect(toolDrift('tracker', [g], TOOLS).map((p) => p.message)).toEqual([
      'argument "perPage": declared string, the upstream inputSchema types it integer',
      'argument "q": the upstream inputSchema has no such property',
      'argument "team": the upstream inputSchema of "search_issues" has no such property',
    ]);
  });

  it('takes an integer where the upstream says number, not a number where it says integer', () => {
    const tools = [
      { name: 't', inputSchema: { properties: { a: { type: 'number' }, b: { type: 'integer' } } } },
    ];
    const g = grant('t', [
      { name: 'a', upstream: 'a', type: 'integer' },
      { name: 'b', upstream: 'b', type: 'number' },
    ]);
    expect(toolDrift('tracker', [g], tools).map((p) => p.message)).toEqual([
      'argument "b": declared number, the upstream inputSchema types it integer',
    ]);
  });

  it('compares nothing against a schema that names no properties', () => {
    const g = grant('t', [{ name: 'a', upstream: 'a', type: 'integer' }]);
    expect(toolDrift('tracker', [g], [{ name: 't', inputSchema: { type: 'object' } }])).toEqual([]);
  });
});
