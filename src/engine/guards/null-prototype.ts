/**
 * Arguments named like Object.prototype members (`toString`, `constructor`,
 * `valueOf`...). On a parsed JSON object such a name is always "there": the validator
 * ajv generates reads `data.toString`, finds the inherited function, and refuses an
 * omitted optional field as "must be string", or skips its default. Grants that
 * declare such a name get their arguments copied into objects without a prototype
 * before any guard runs; other grants pay nothing.
 */
import type { JsonSchema } from '../../compiler/field-schema.js';
import type { ExactJson } from '../../json/number-text.js';

/** Whether a name resolves to something on a plain object that does not own it. */
export function isInheritedName(name: string): boolean {
  return name in Object.prototype;
}

/** Whether a schema (at any depth) or an argument list declares an inherited name. */
export function declaresInheritedName(
  schema: JsonSchema,
  argumentNames: readonly string[],
): boolean {
  return argumentNames.some(isInheritedName) || schemaDeclares(schema);
}

function schemaDeclares(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as JsonSchema;
  const properties = s.properties as Record<string, unknown> | undefined;
  if (properties) {
    for (const k of Object.keys(properties))
      if (isInheritedName(k) || schemaDeclares(properties[k])) return true;
  }
  return schemaDeclares(s.items);
}

/**
 * A deep copy in which every object has no prototype (arrays stay arrays). It has the
 * same shape, so the kept number texts, which go by position, are still right for it.
 */
export function withoutPrototypes<T>(input: ExactJson<T>): ExactJson<T> {
  return { value: copied(input.value) as T, texts: input.texts };
}

/** Nesting is bounded before parsing (json-depth.ts). */
function copied(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copied);
  const o = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(value)) o[k] = copied((value as Record<string, unknown>)[k]);
  return o;
}
