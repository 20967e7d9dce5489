/** The outputSchema every tool shares: the coverage-first envelope (spec-language.md). */
import type { JsonSchema } from './field-schema.js';
import { deepFreeze } from './freeze.js';

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
        'Every array in the result by JSONPath, with its full length and, when cut, how many were kept.',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          length: { type: 'integer' },
          kept: { type: 'integer' },
        },
        required: ['path', 'length'],
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
