/**
 * The outputSchema pick and omit derive is portable: no sub-schema is a bare boolean
 * (except as the value of additionalProperties and its kin) and every sub-schema has a
 * keyword that constrains the value (except the `{}` under `not`), the rules of the MCP
 * Inspector's `--strict` check (`npm run check:inspector` serves the fixture below).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapePaths } from '../helpers/shape-paths.js';
import { compileSpecFile } from '../../src/compiler/load-spec.js';
import {
  HTTP_OUTPUT_SCHEMA,
  SQL_OUTPUT_SCHEMA,
  shapedOutputSchema,
} from '../../src/compiler/output-schema.js';
import { toolList } from '../../src/projection/mcp/tool-definition.js';

const FIXTURE = join('test', 'fixtures', 'inspector', 'shaped-results.mcp.kdl');

/** Keywords whose value may be a bare boolean: `additionalProperties: false` is portable. */
const BOOLEAN_VALUED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);
const ONE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const NAMED = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
/** Keywords that constrain a value: a schema with none of them accepts anything. */
const CONSTRAINING = new Set([
  ...['type', 'enum', 'const', 'required', 'minimum', 'maximum', 'pattern', 'format'],
  ...['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'],
  ...['allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains', 'properties'],
  ...['patternProperties', 'additionalProperties', 'propertyNames', '$ref'],
]);

/** Each sub-schema that breaks a rule, by its path: what the Inspector would report. */
function findings(schema: unknown, path = '', keyword?: string): string[] {
  if (typeof schema === 'boolean')
    return keyword !== undefined && BOOLEAN_VALUED.has(keyword) ? [] : [`${path}: ${schema}`];
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  if (keyword !== 'not' && !Object.keys(node).some((k) => CONSTRAINING.has(k)))
    out.push(`${path}: no keyword that constrains`);
  for (const k of [...ONE, ...BOOLEAN_VALUED])
    if (k in node) out.push(...findings(node[k], `${path}.${k}`, k));
  for (const k of MANY)
    if (Array.isArray(node[k]))
      (node[k] as unknown[]).forEach((s, i) => out.push(...findings(s, `${path}.${k}[${i}]`, k)));
  for (const k of NAMED)
    for (const [name, s] of Object.entries((node[k] ?? {}) as Record<string, unknown>))
      out.push(...findings(s, `${path}.${k}.${name}`, k));
  return out;
}

describe('the outputSchema of a grant with pick or omit', () => {
  it('has no bare boolean and no keyword-less sub-schema in the fixture the Inspector checks', async () => {
    const { compiled, diagnostics } = await compileSpecFile(FIXTURE);
    expect(diagnostics).toEqual([]);
    const tools = toolList(compiled!.tools).tools;
    expect(tools.map((t) => t.name)).toEqual(['list_issues', 'get_issue']);
    for (const tool of tools) expect(findings(tool.outputSchema), tool.name).toEqual([]);
  });

  it('still refuses a field omit drops and one pick does not keep', async () => {
    const { compiled } = await compileSpecFile(FIXTURE);
    const [list, get] = toolList(compiled!.tools).tools;
    const result = (t: typeof list) =>
      (t!.outputSchema!.properties as Record<string, Record<string, unknown>>).result!;
    expect((result(get).properties as Record<string, unknown>).body).toEqual({ not: {} });
    expect(result(list).additionalProperties).toBe(false);
  });

  it('has neither for any paths, under pick and omit, for an HTTP and a sql grant', () => {
    const name = fc.constantFrom('a', 'b', '__proto__', 'x y');
    const path = shapePaths(name);
    fc.assert(
      fc.property(
        fc.uniqueArray(path, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('pick' as const, 'omit' as const),
        fc.constantFrom(HTTP_OUTPUT_SCHEMA, SQL_OUTPUT_SCHEMA),
        (paths, mode, base) => {
          let schema;
          try {
            schema = shapedOutputSchema(base, { mode, paths });
          } catch {
            // Paths that step into one field with and without [] are refused by check.
            fc.pre(false);
          }
          expect(findings(schema)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
