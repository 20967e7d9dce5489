/**
 * What the server-rendered page (catalog-page.ts) and the browser script
 * (catalog-script.ts) both need: the annotation badges, and the try-it example built
 * from an input schema. The script embeds the data as JSON and carries a plain-JS copy
 * of {@link exampleArguments}; the catalog test checks that both give the same example.
 */
import type { Descriptor } from '../../spec/descriptor.js';
import type { JsonSchema } from '../../spec/field-schema.js';

export interface Badge {
  readonly hint: keyof Omit<Descriptor['annotations'], 'title'>;
  readonly label: string;
  readonly kind: string;
  readonly explain: string;
}

export const BADGES: readonly Badge[] = [
  {
    hint: 'readOnlyHint',
    label: 'read-only',
    kind: 'read-only',
    explain: 'Does not change anything upstream.',
  },
  {
    hint: 'destructiveHint',
    label: 'destructive',
    kind: 'destructive',
    explain: 'May delete or overwrite data upstream.',
  },
  {
    hint: 'idempotentHint',
    label: 'idempotent',
    kind: 'idempotent',
    explain: 'Calling it again with the same arguments has no further effect.',
  },
  {
    hint: 'openWorldHint',
    label: 'open-world',
    kind: 'open-world',
    explain: 'Talks to a system outside this gateway.',
  },
];

/** The try-it example nests no deeper than this. */
export const EXAMPLE_MAX_DEPTH = 8;

export const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00Z',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/**
 * A starting point for the try-it form: the required properties and those with a
 * default, each filled with its default, first enum value, or a plain value of its type.
 * (Mirrored by `exampleValue` in catalog-script.ts: change both together.)
 */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const v = exampleValue(schema, 0);
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

function exampleValue(schema: JsonSchema, depth: number): unknown {
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      if (depth > EXAMPLE_MAX_DEPTH) return out;
      for (const [name, sub] of Object.entries(props)) {
        if (required.has(name) || 'default' in sub) out[name] = exampleValue(sub, depth + 1);
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number': {
      if (typeof schema.minimum === 'number') return schema.minimum;
      if (typeof schema.exclusiveMinimum === 'number')
        return Math.floor(schema.exclusiveMinimum) + 1;
      return 0;
    }
    case 'boolean':
      return false;
    case 'string':
      return typeof schema.format === 'string' && Object.hasOwn(FORMAT_EXAMPLES, schema.format)
        ? FORMAT_EXAMPLES[schema.format]
        : '';
    default:
      return null;
  }
}
