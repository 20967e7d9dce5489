/**
 * The outputSchema of every tool: the coverage-first envelope (spec-language.md, "The
 * result envelope"). Every tool of a list repeats it, and a model pays for each byte, so
 * it holds only the envelope's shape a client validates with (an object with `coverage`
 * and a typed `result`, both required); what coverage's members are and mean is said
 * once, in the server's instructions (ENVELOPE_GUIDE), and typed in full once in the
 * OpenAPI document (COVERAGE_SCHEMA).
 *
 * Every subschema carries a validation keyword (the MCP Inspector's `--strict` check
 * flags one without), and no `type` is an array (it flags those as unportable too).
 */
import { shapeTreeOf, type ShapeDescriptor, type ShapeNode } from '../envelope/shape-path.js';
import type { JsonSchema } from './field-schema.js';
import { deepFreeze } from './freeze.js';

/**
 * Coverage is an object whose members (truncated, bytes, over_budget, items always;
 * items_omitted, rows, shaped, upstream_bytes, withheld when they apply) ENVELOPE_GUIDE names and
 * types once. Typing them here cost 200 bytes per tool, more than a third of the list of a
 * six-tool spec, for checks of values the gateway itself writes; `required` without the
 * typed `properties` is refused by strict JSON Schema compilers (ajv strictRequired).
 */
const coverage = { type: 'object' };

/** An HTTP upstream may send any JSON value, text (a string) or nothing (null). */
export const HTTP_RESULT_SCHEMA: JsonSchema = {
  anyOf: [
    { type: 'object' },
    { type: 'array' },
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
  ],
};

/** Rows as objects keyed by column name, or {"rowCount": n} for a write without RETURNING. */
export const SQL_RESULT_SCHEMA: JsonSchema = {
  anyOf: [
    { type: 'array', items: { type: 'object' } },
    { type: 'object', properties: { rowCount: { type: 'integer' } }, required: ['rowCount'] },
  ],
};

export function envelopeSchema(result: JsonSchema): JsonSchema {
  return deepFreeze({
    type: 'object',
    properties: { coverage, result },
    required: ['coverage', 'result'],
  });
}

export const HTTP_OUTPUT_SCHEMA = envelopeSchema(HTTP_RESULT_SCHEMA);
export const SQL_OUTPUT_SCHEMA = envelopeSchema(SQL_RESULT_SCHEMA);
/** An upstream MCP tool's result, mapped (structured content, parsed JSON, joined text or its
 * content blocks), is any JSON value, as an HTTP upstream's is. */
export const MCP_OUTPUT_SCHEMA = envelopeSchema(HTTP_RESULT_SCHEMA);

/**
 * Coverage with every member typed and described, for documents that hold it once
 * rather than per tool (the OpenAPI document's `Coverage` component).
 */
export const COVERAGE_SCHEMA: JsonSchema = deepFreeze({
  type: 'object',
  description: 'What the result covers: read it before the result.',
  properties: {
    truncated: {
      type: 'boolean',
      description:
        'The result was cut so that the envelope fits max-bytes; it is still valid JSON.',
    },
    bytes: { type: 'integer', description: 'Size of the complete result, before any cut.' },
    over_budget: { type: 'boolean', description: 'The envelope is larger than budget-bytes.' },
    items: {
      type: 'array',
      description:
        'The arrays of the result by JSONPath: length and, when cut, kept; arrays whose paths differ only in indexes are one entry with count, min, max and total of their lengths.',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          length: { type: 'integer' },
          kept: { type: 'integer' },
          count: { type: 'integer' },
          min: { type: 'integer' },
          max: { type: 'integer' },
          total: { type: 'integer' },
        },
        required: ['path'],
      },
    },
    items_omitted: { type: 'integer', description: 'Entries left out of items.' },
    rows: { type: 'integer', description: 'sql: rows the statement produced, before max-rows.' },
    shaped: { type: 'boolean', description: 'The grant kept only some fields (pick or omit).' },
    upstream_bytes: { type: 'integer', description: 'Size of the result before shaping.' },
    withheld: {
      type: 'string',
      description:
        'Why the result is null: the upstream sent what the grant cannot shape (not JSON, or cut at the read cap).',
    },
  },
  required: ['truncated', 'bytes', 'over_budget', 'items'],
});

/**
 * The envelope, explained once for the whole server: MCP clients hand a server's
 * `instructions` to the model with the tool list, so the schemas above need no prose.
 * The MCP projection appends it to the spec's own `describe` (payloads.ts).
 */
export const ENVELOPE_GUIDE = [
  'Every tool result is {"coverage":{...},"result":...}, coverage first: read it before the result. result is any JSON value unless the tool\'s outputSchema types it.',
  'coverage.truncated (boolean): the result was cut to fit the size cap (arrays lose their last elements, long strings are shortened); what is kept is valid JSON.',
  'coverage.bytes (integer): size of the complete result. coverage.over_budget (boolean): the envelope is larger than a small context should take.',
  'coverage.items (array): the arrays in the result by JSONPath, each {path, length, kept when cut}; arrays whose paths differ only in indexes are one entry {path:"$[*].tags", count, min, max, total} of their lengths. coverage.items_omitted: entries left out of items.',
  'coverage.rows (sql): rows the statement produced, before max-rows. coverage.shaped and coverage.upstream_bytes: the grant kept only some fields, and the size before it did; coverage.withheld (string): why the result is null, the upstream having sent what the grant cannot shape.',
  'Arguments: null for an optional argument means it is not given.',
].join('\n');

/**
 * The outputSchema of a grant with `pick` / `omit`: the `result` part says which fields
 * the result holds. pick: an object holds only the named fields (`additionalProperties:
 * false`), a field named whole being any JSON value; omit: a named field is absent
 * (`{"not": {}}`, the always-false schema). Both apply to the result and, when it is an
 * array, to each element; what the shaper returns where the data's shape differs from a
 * path (scalars left alone, a mismatch dropped by pick, an array shaped element by
 * element by omit) matches, as the keywords only constrain their own kind.
 * Coverage stays the compact `{type: object}`: ENVELOPE_GUIDE names `shaped` and
 * `upstream_bytes` once for every tool.
 *
 * No sub-schema is a bare `true`/`false` or `{}`: the MCP Inspector's `--strict` flags
 * each (a boolean is an error, a schema without a validation keyword a warning), and
 * clients that map schemas onto a narrower dialect drop or refuse them. The spellings
 * here accept and refuse exactly what `{}` and `false` did.
 */
const PICKED_WHOLE = HTTP_RESULT_SCHEMA;
const OMITTED: JsonSchema = { not: {} };

export function shapedOutputSchema(
  base: JsonSchema,
  shape: ShapeDescriptor,
  /** The paths' tree when the caller has it (the grant's check built it). */
  root: ReadonlyMap<string, ShapeNode> = shapeTreeOf(shape.paths),
): JsonSchema {
  const pick = shape.mode === 'pick';
  // `__proto__` goes under patternProperties: validators read `properties` through
  // plain objects, where that key names the prototype instead of a field.
  const fields = (named: ReadonlyMap<string, ShapeNode>): JsonSchema => {
    const entries = [...named].map(([k, node]) => [k, below(node)] as const);
    const proto = entries.find(([k]) => k === '__proto__');
    return {
      properties: Object.fromEntries(entries.filter(([k]) => k !== '__proto__')),
      ...(proto && { patternProperties: { '^__proto__$': proto[1] } }),
      ...(pick && { additionalProperties: false }),
    };
  };
  const below = (node: ShapeNode): JsonSchema => {
    if (node.kind === 'whole') return pick ? PICKED_WHOLE : OMITTED;
    if (node.kind === 'each') return { items: below(node.of) };
    return fields(node.fields);
  };
  const baseProps = base.properties as Record<string, JsonSchema>;
  const each = fields(root);
  return deepFreeze({
    ...base,
    properties: {
      ...baseProps,
      result: {
        description: `${pick ? 'Only these fields are kept' : 'These fields are left out'}: ${shape.paths.join(', ')}.`,
        ...baseProps.result,
        ...each,
        items: each,
      },
    },
  });
}
