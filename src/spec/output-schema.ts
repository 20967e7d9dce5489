/** The outputSchema every tool shares: the coverage-first envelope (spec-language.md). */
import type { ShapeDescriptor } from './descriptor.js';
import type { JsonSchema } from './field-schema.js';
import { deepFreeze } from './freeze.js';
import { shapeTreeOf, type ShapeNode } from './shape-path.js';

const coverage = {
  type: 'object',
  description: 'What the result covers: read this before the result.',
  properties: {
    truncated: {
      type: 'boolean',
      description: 'The result was cut to max-bytes; it is still valid JSON.',
    },
    bytes: { type: 'integer', description: 'Size in bytes of the complete result before any cut.' },
    over_budget: {
      type: 'boolean',
      description: 'The envelope is larger than the budget a small context can take.',
    },
    items: {
      type: 'array',
      description:
        'Arrays by JSONPath ([*]: every element): length, or for a [*] path count/min/max/total lengths; kept: elements left after a cut.',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          length: { type: 'integer' },
          kept: { type: 'integer' },
        },
        required: ['path'],
      },
    },
    items_omitted: {
      type: 'integer',
      description: 'Arrays left out of items because the list was capped.',
    },
    rows: { type: 'integer', description: 'sql: rows the statement produced, before max-rows.' },
  },
  required: ['truncated', 'bytes', 'over_budget', 'items'],
};

export function envelopeSchema(resultDescription: string): JsonSchema {
  return deepFreeze({
    type: 'object',
    properties: { coverage, result: { description: resultDescription } },
    required: ['coverage', 'result'],
  });
}

export const HTTP_OUTPUT_SCHEMA = envelopeSchema(
  'The upstream response: JSON as sent, or text when the upstream did not send JSON.',
);
export const SQL_OUTPUT_SCHEMA = envelopeSchema(
  'Rows as objects keyed by column name, or {"rowCount": n} for a write without RETURNING.',
);

/**
 * The outputSchema of a grant with `pick` / `omit`: the `result` part says which fields
 * the result holds. pick: an object holds only the named fields (`additionalProperties:
 * false`); omit: a named field is absent (`false`). Both apply to the result and, when
 * it is an array, to each element; values the shaper leaves alone (not objects, not
 * arrays where `[]` was written) match, as the keywords only constrain their own kind.
 */
export function shapedOutputSchema(base: JsonSchema, shape: ShapeDescriptor): JsonSchema {
  const root = shapeTreeOf(shape.paths);
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
  const below = (node: ShapeNode): JsonSchema | boolean => {
    if (node.kind === 'whole') return pick ? {} : false;
    if (node.kind === 'each') return { items: below(node.of) };
    return fields(node.fields);
  };
  const baseProps = base.properties as Record<string, JsonSchema>;
  const coverage = baseProps.coverage!;
  const listed = shape.paths.join(', ');
  const each = fields(root);
  return deepFreeze({
    ...base,
    properties: {
      ...baseProps,
      coverage: {
        ...coverage,
        properties: {
          ...(coverage.properties as JsonSchema),
          upstream_bytes: { type: 'integer', description: 'Size of what the upstream sent.' },
          shaped: { const: true, description: 'The result was shaped by pick/omit.' },
        },
        required: [...(coverage.required as string[]), 'upstream_bytes', 'shaped'],
      },
      result: {
        description: `${baseProps.result!.description as string} ${pick ? 'Only these fields are kept' : 'These fields are left out'}: ${listed}.`,
        ...each,
        items: each,
      },
    },
  });
}
