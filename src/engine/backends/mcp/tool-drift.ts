/**
 * Drift between a spec's `tool` grants and what their upstream lists (spec-language.md,
 * "Upstream MCP servers": drift). Pure: the grants and a `tools/list` answer in, one
 * line per problem out. The spec stays the truth; these lines only warn that a call may
 * now fail upstream (a tool gone, an argument the upstream no longer takes or types
 * otherwise).
 */
import type { BodyFieldDescriptor, SourceRef } from '../../../compiler/descriptor.js';
import type { FieldType } from '../../../compiler/field-types.js';
import type { GrantOf } from '../kind.js';
import type { UpstreamTool } from '../../../mcp-upstream/upstream-tools.js';

export interface DriftProblem {
  readonly grant: string;
  readonly server: string;
  readonly source: SourceRef;
  readonly message: string;
}

/** JSON Schema types an upstream may declare for a value of each field type. */
const ACCEPTS: Readonly<Record<Exclude<FieldType, 'raw'>, readonly string[]>> = {
  string: ['string'],
  integer: ['integer', 'number'],
  number: ['number'],
  boolean: ['boolean'],
  'string[]': ['array'],
  'integer[]': ['array'],
  'number[]': ['array'],
  'boolean[]': ['array'],
  object: ['object'],
  'object[]': ['array'],
};

/** The problems of `grants` (all of `server`) against the upstream's `tools`. */
export function toolDrift(
  server: string,
  grants: readonly GrantOf<'mcp'>[],
  tools: readonly UpstreamTool[],
): DriftProblem[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: DriftProblem[] = [];
  for (const g of grants) {
    const say = (message: string): void => {
      problems.push({ grant: g.name, server, source: g.source, message });
    };
    const tool = byName.get(g.backend.tool);
    if (!tool) {
      say(`mcp-server ${server} does not list the tool ${JSON.stringify(g.backend.tool)}`);
      continue;
    }
    const properties = propertiesOf(tool.inputSchema);
    // A schema that names no properties at all says nothing to compare against.
    if (!properties) continue;
    for (const f of g.backend.fields) {
      const problem = fieldDrift(f, properties[f.upstream]);
      if (problem) say(`argument ${JSON.stringify(f.upstream)}: ${problem}`);
    }
    const pinned = new Set([
      ...g.arguments.flatMap((a) => (a.bodyPath?.[0] !== undefined ? [a.bodyPath[0]] : [])),
      ...g.backend.setArgs.map((s) => s.path[0]!),
    ]);
    for (const name of pinned)
      if (!Object.hasOwn(properties, name))
        say(`argument ${JSON.stringify(name)}: ${notInSchema(g.backend.tool)}`);
  }
  return problems;
}

/** One line per problem, as `check` and the log write it: `file:line: grant x: …`. */
export function driftLine(p: DriftProblem): string {
  return `${p.source.file}:${p.source.line}: grant ${p.grant}: ${p.message}`;
}

function fieldDrift(f: BodyFieldDescriptor, schema: unknown): string | undefined {
  if (schema === undefined) return 'the upstream inputSchema has no such property';
  if (f.type === 'raw') return undefined;
  const declared = typesOf(schema);
  if (!declared) return undefined;
  const accepted = ACCEPTS[f.type];
  if (declared.some((t) => accepted.includes(t))) return undefined;
  return `declared ${f.type}, the upstream inputSchema types it ${declared.join(' | ')}`;
}

function notInSchema(tool: string): string {
  return `the upstream inputSchema of ${JSON.stringify(tool)} has no such property`;
}

function propertiesOf(schema: unknown): Readonly<Record<string, unknown>> | undefined {
  if (!isObject(schema)) return undefined;
  const p = schema.properties;
  return isObject(p) ? p : undefined;
}

/** The types a property schema declares, or undefined when it declares none we read. */
function typesOf(schema: unknown): string[] | undefined {
  if (!isObject(schema)) return undefined;
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t as string[];
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
