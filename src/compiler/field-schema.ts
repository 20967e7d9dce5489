/**
 * Field → JSON Schema 2020-12 (the tool's inputSchema), and a direct check of one
 * scalar against its field, used at load for `default=`, `enum` and `restrict` values.
 * The engine validates calls with ajv against the schema built here; the direct check
 * applies the same rules without compiling a validator per field at load.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Scalar } from './kdl-reader.js';
import type { FieldSpec, FieldType, Format } from './field-types.js';

export type { JsonSchema } from './descriptor.js';
import type { JsonSchema } from './descriptor.js';

/** Path parameters fill one segment: never empty, never unbounded (security.md). */
export const PATH_PARAM_MAX_LENGTH = 1024;

const ITEM_TYPE: Partial<Record<FieldType, string>> = {
  'string[]': 'string',
  'integer[]': 'integer',
  'number[]': 'number',
  'boolean[]': 'boolean',
};

function scalarConstraints(f: FieldSpec, itemType: string): Record<string, unknown> {
  const s: Record<string, unknown> = { type: itemType };
  if (f.enum) s.enum = f.enum.map((e) => e.value);
  if (f.min) s.minimum = f.min.value;
  if (f.max) s.maximum = f.max.value;
  if (f.minLength) s.minLength = f.minLength.value;
  if (f.maxLength) s.maxLength = f.maxLength.value;
  if (f.pattern) s.pattern = f.pattern.value;
  if (f.format) s.format = f.format;
  return s;
}

/**
 * The schema of one field. `omit` names nested fields that are not caller input
 * (`arg=` projections): they are left out, and an object left with no field at all
 * is reported by returning undefined.
 */
export function fieldSchema(
  f: FieldSpec,
  isProjected: (f: FieldSpec) => boolean = () => false,
): JsonSchema | undefined {
  let s: Record<string, unknown>;
  const item = ITEM_TYPE[f.type];
  if (item) {
    s = { type: 'array', items: scalarConstraints(f, item) };
  } else if (f.type === 'object' || f.type === 'object[]') {
    const obj = objectSchema(f.fields ?? [], isProjected);
    if (!obj) return undefined;
    s = f.type === 'object' ? obj : { type: 'array', items: obj };
  } else if (f.type === 'raw') {
    // anyOf, not `type: ["object", "array"]`: clients that map schemas onto a dialect with
    // one type per schema (Gemini's OpenAPI subset) drop or refuse a type array.
    s = f.kind ? { type: f.kind } : { anyOf: [{ type: 'object' }, { type: 'array' }] };
  } else {
    s = scalarConstraints(f, f.type);
  }
  if (f.minItems) s.minItems = f.minItems.value;
  if (f.maxItems) s.maxItems = f.maxItems.value;
  if (f.default !== undefined) s.default = f.default.value;
  if (f.describe !== undefined) s.description = f.describe;
  return s;
}

export function objectSchema(
  fields: readonly FieldSpec[],
  isProjected: (f: FieldSpec) => boolean,
): Record<string, unknown> | undefined {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const f of fields) {
    if (isProjected(f)) continue;
    const s = fieldSchema(f, isProjected);
    if (!s) continue;
    properties[f.name] = s;
    if (f.required) required.push(f.name);
  }
  if (Object.keys(properties).length === 0) return undefined;
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/**
 * Checks one scalar against a scalar field (or the items of a scalar array field).
 * Returns why it does not fit, or undefined.
 */
export function scalarMisfit(
  f: FieldSpec,
  value: Scalar,
  opts: { ignoreEnum?: boolean } = {},
): string | undefined {
  const type = ITEM_TYPE[f.type] ?? f.type;
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return `${JSON.stringify(value)} is not a string`;
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        return `${JSON.stringify(value)} is not an integer`;
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `${JSON.stringify(value)} is not a number`;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return `${JSON.stringify(value)} is not a boolean`;
      break;
    default:
      return `a ${f.type} field cannot hold ${JSON.stringify(value)}`;
  }
  if (typeof value === 'number') {
    if (f.min && value < f.min.value) return `${value} is below min=${f.min.value}`;
    if (f.max && value > f.max.value) return `${value} is above max=${f.max.value}`;
  }
  if (typeof value === 'string') {
    // JSON Schema counts code points, not UTF-16 units.
    const length = [...value].length;
    if (f.minLength && length < f.minLength.value)
      return `${JSON.stringify(value)} is shorter than min-length=${f.minLength.value}`;
    if (f.maxLength && length > f.maxLength.value)
      return `${JSON.stringify(value)} is longer than max-length=${f.maxLength.value}`;
    if (f.pattern && !safeTest(f.pattern.value, value))
      return `${JSON.stringify(value)} does not match pattern ${JSON.stringify(f.pattern.value)}`;
    if (f.format && !formatOk(f.format, value))
      return `${JSON.stringify(value)} is not a valid ${f.format}`;
  }
  if (!opts.ignoreEnum && f.enum && !f.enum.some((e) => e.value === value)) {
    return `${JSON.stringify(value)} is not one of the enum values`;
  }
  return undefined;
}

function safeTest(source: string, value: string): boolean {
  try {
    return new RegExp(source, 'u').test(value);
  } catch {
    return true; // an invalid pattern is reported on its own
  }
}

export function formatOk(format: Format, value: string): boolean {
  const f = (fullFormats as Record<string, unknown>)[format];
  if (f instanceof RegExp) return f.test(value);
  if (typeof f === 'function') return Boolean((f as (v: string) => boolean)(value));
  if (f && typeof f === 'object' && 'validate' in f) {
    const v = (f as { validate: RegExp | ((s: string) => boolean) }).validate;
    return v instanceof RegExp ? v.test(value) : v(value);
  }
  return true;
}
