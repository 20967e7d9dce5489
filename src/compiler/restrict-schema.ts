/**
 * `restrict` stated in the argument's input schema (spec-language.md, "Shaping results
 * (`pick` and `omit`)"): a caller learns every allowlist from tools/list before a call is refused
 * for it. Allowed values become `enum`, intersected with the field's own (the checker
 * refuses an empty intersection); a pattern becomes `pattern`, or an `allOf` member when
 * the field has a pattern of its own. A scalar array is restricted element by element,
 * so its rule goes on `items`. The engine still checks restrict first (DENIED_BY_RESTRICT);
 * the schema only says the same rule.
 */
import type { JsonScalar, JsonSchema } from './descriptor.js';

export interface RestrictRule {
  readonly values?: readonly JsonScalar[];
  readonly pattern?: string;
}

export function restrictedSchema(schema: JsonSchema, rule: RestrictRule): JsonSchema {
  if (schema.type === 'array' && schema.items)
    return { ...schema, items: restrictedScalar(schema.items as JsonSchema, rule) };
  return restrictedScalar(schema, rule);
}

function restrictedScalar(schema: JsonSchema, { values, pattern }: RestrictRule): JsonSchema {
  const out: Record<string, unknown> = { ...schema };
  if (values) {
    const own = schema.enum as readonly JsonScalar[] | undefined;
    out.enum = own ? own.filter((v) => values.includes(v)) : [...values];
  }
  if (pattern !== undefined) {
    if (schema.pattern === undefined) out.pattern = pattern;
    else out.allOf = [...((schema.allOf as JsonSchema[] | undefined) ?? []), { pattern }];
  }
  return out;
}
