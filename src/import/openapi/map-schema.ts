/**
 * One OpenAPI schema → one field of the grant language: types, required, defaults,
 * enums, bounds, lengths, safe patterns and known formats; objects nested to depth 3,
 * `raw` beyond and for what a field cannot type (free-form objects, unions of shapes,
 * schemas that refer to themselves). Internal `$ref`s are resolved here, with the
 * schemas being expanded kept on a stack: a `$ref` back into the stack is a cycle and
 * becomes `raw`, so a recursive schema never recurses.
 */
import { scalarMisfit } from '../../compiler/field-schema.js';
import { checkPattern } from '../../compiler/pattern-safety.js';
import type { FieldSpec, FieldType, Format } from '../../compiler/field-types.js';
import { FORMATS } from '../../compiler/field-types.js';
import type { DraftField, Scalar } from './draft-types.js';
import { isObject, resolvePointer, type JsonObject } from './json.js';
import { fieldName, reservedNote, uniqueName } from './name-fields.js';
import { RESERVED_NAME } from '../../compiler/naming.js';
import { fieldDescription } from './text.js';

/** Objects are typed down to this depth (a block's own fields are depth 1). */
export const MAX_OBJECT_DEPTH = 3;

/**
 * Typed fields one grant may expand into. Shared schemas are expanded in place for every
 * field that refers to them, so wide ones nested three deep multiply (a 4 KB document
 * drafted 3.2 MB); past the budget a nested object is `raw`, and a draft grows about
 * linearly with its operations. GitHub's widest request body takes 60 (POST /applications/{client_id}/token/scoped).
 */
export const MAX_GRANT_FIELDS = 100;

export type Place = 'path' | 'query' | 'body';
export type Mapped = { ok: true; field: DraftField } | { ok: false; reason: string };

/** The lead line of a field passed through as `raw`, before the reason. */
const RAW_LEAD = 'passed through as raw: ';

/** A field passed through as `raw` (any JSON the caller sends), its lead line saying why. */
function rawField(
  base: Partial<DraftField> & { name: string },
  kind: 'object' | 'array' | undefined,
  describe: string | undefined,
  why: string,
): Mapped {
  const field: DraftField = {
    ...base,
    type: 'raw',
    ...(kind && { kind }),
    ...(describe && { describe }),
  };
  return { ok: true, field: { ...field, lead: [RAW_LEAD + why] } };
}

type ScalarType = 'string' | 'integer' | 'number' | 'boolean';
const SCALARS = new Set<string>(['string', 'integer', 'number', 'boolean']);

/** A schema with `$ref`, `allOf` and `oneOf`/`anyOf` taken apart, or why it cannot be. */
type Flat =
  | { kind: 'schema'; s: JsonObject; origins: readonly JsonObject[] }
  | { kind: 'raw'; as?: 'object' | 'array'; why: string }
  | { kind: 'fail'; reason: string; union?: readonly (string | undefined)[] };

export interface FieldInput {
  readonly name: string;
  readonly upstream: string;
  readonly schema: unknown;
  readonly required: boolean;
  readonly describe?: string;
  readonly place: Place;
  readonly depth: number;
}

export class SchemaMapper {
  private readonly stack = new Set<object>();
  /** Typed fields the current grant has left before nested objects become `raw`. */
  private fieldsLeft = MAX_GRANT_FIELDS;

  constructor(private readonly root: JsonObject) {}

  /** Starts a grant's field budget (MAX_GRANT_FIELDS). */
  beginGrant(): void {
    this.fieldsLeft = MAX_GRANT_FIELDS;
  }

  /** Follows `$ref`s; a target already being expanded is a cycle. */
  deref(schema: unknown): { s?: JsonObject; cycle?: boolean; dangling?: string } {
    let cur = schema;
    for (let hops = 0; isObject(cur) && typeof cur.$ref === 'string'; hops++) {
      const target = resolvePointer(this.root, cur.$ref);
      if (!isObject(target)) return { dangling: cur.$ref };
      if (this.stack.has(target) || hops > 32) return { s: target, cycle: true };
      cur = target;
    }
    return isObject(cur) ? { s: cur } : {};
  }

  /**
   * Runs `f` with these schemas on the stack: what is expanded below them may not
   * refer back to them. `origins` are the schemas a flattened one was merged from.
   */
  within<T>(origins: readonly object[], f: () => T): T {
    const added = origins.filter((s) => !this.stack.has(s));
    for (const s of added) this.stack.add(s);
    try {
      return f();
    } finally {
      for (const s of added) this.stack.delete(s);
    }
  }

  flatten(schema: unknown): Flat {
    const r = this.deref(schema);
    if (r.dangling) return { kind: 'fail', reason: `its $ref ${r.dangling} does not resolve` };
    if (!r.s) return { kind: 'schema', s: {}, origins: [] };
    if (r.cycle)
      return { kind: 'raw', ...kindOf(r.s), why: 'its schema refers to itself (a $ref cycle)' };
    const s = r.s;
    const f = this.within([s], () => this.flattenResolved(s));
    return f.kind === 'schema' ? { ...f, origins: [s, ...f.origins] } : f;
  }

  private flattenResolved(s: JsonObject): Flat {
    let merged: JsonObject = s;
    const origins: JsonObject[] = [];
    if (Array.isArray(s.allOf)) {
      const { allOf: parts, ...own } = s;
      merged = own;
      for (const part of parts as unknown[]) {
        const f = this.flatten(part);
        if (f.kind !== 'schema') return f;
        merged = mergeSchemas(merged, f.s);
        origins.push(...f.origins);
      }
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const alts = merged[key];
      if (!Array.isArray(alts)) continue;
      const { [key]: _drop, ...own } = merged;
      const flats: { s: JsonObject; origins: readonly JsonObject[] }[] = [];
      for (const alt of alts as unknown[]) {
        const f = this.flatten(alt);
        if (f.kind === 'fail') return f;
        if (f.kind === 'raw') flats.push({ s: { type: f.as ?? ['object', 'array'] }, origins: [] });
        else if (!isNullOnly(f.s)) flats.push(f);
      }
      const shapedAlts = flats.filter((f) => hasShape(f.s));
      const shaped = shapedAlts.map((f) => f.s);
      if (shaped.length === 0) {
        merged = own; // alternatives that only say which fields are required
        continue;
      }
      if (shaped.length === 1) {
        merged = mergeSchemas(own, shaped[0]!);
        origins.push(...shapedAlts[0]!.origins);
        continue;
      }
      const kinds = new Set(shaped.map(typeOf));
      if (kinds.size === 1 && SCALARS.has([...kinds][0]!)) {
        merged = { ...own, type: [...kinds][0] };
        continue;
      }
      if ([...kinds].every((k) => k === 'integer' || k === 'number')) {
        merged = { ...own, type: 'number' };
        continue;
      }
      if ([...kinds].every((k) => k === 'object' || k === 'array')) {
        const as = kinds.size === 1 ? ([...kinds][0] as 'object' | 'array') : undefined;
        return { kind: 'raw', ...(as && { as }), why: `it is one of ${shaped.length} shapes` };
      }
      return {
        kind: 'fail',
        reason: `it is one of several types (${[...kinds].map((k) => k ?? 'any').join(', ')}); a field has one`,
        union: [...kinds],
      };
    }
    return { kind: 'schema', s: merged, origins };
  }

  field(input: FieldInput): Mapped {
    const flat = this.flatten(input.schema);
    if (flat.kind === 'fail') {
      const text =
        flat.union && input.place !== 'body' ? textUnion(flat.union, input.place) : undefined;
      if (text)
        return this.field({
          ...input,
          schema: { type: text, ...(text === 'array' && { items: { type: 'string' } }) },
        });
      // In a body, a union that allows a string is drafted as a string: narrower than the
      // upstream accepts, never wider, and a required field stays in the grant.
      if (flat.union?.includes('string')) {
        const narrowed = this.field({ ...input, schema: { type: 'string' } });
        if (!narrowed.ok) return narrowed;
        const others = flat.union.filter((k) => k !== 'string').join(', ');
        return {
          ok: true,
          field: {
            ...narrowed.field,
            ...(input.describe && { describe: input.describe }),
            lead: [`narrowed to string: the document also allows ${others}`],
          },
        };
      }
      return { ok: false, reason: flat.reason };
    }
    const describe = input.describe;
    const base = {
      name: input.name,
      ...(input.name !== input.upstream && { as: input.upstream }),
      ...(input.required && { required: true }),
    };
    if (flat.kind === 'raw') {
      if (input.place !== 'body')
        return { ok: false, reason: `${flat.why}; ${input.place} parameters take scalars` };
      return rawField(base, flat.as, describe, flat.why);
    }
    return this.within(flat.origins, () => this.typed(base, flat.s, describe, input));
  }

  private typed(
    base: Partial<DraftField> & { name: string },
    s: JsonObject,
    describe: string | undefined,
    input: FieldInput,
  ): Mapped {
    const desc = describe ?? fieldDescription(s.description, s.title);
    const type = typeOf(s);
    if (type === undefined || SCALARS.has(type)) {
      if (type === undefined && input.place === 'body')
        return { ok: false, reason: 'its schema gives no type' };
      return this.scalar(base, (type ?? 'string') as ScalarType, s, desc, input);
    }
    if (type === 'array') return this.array(base, s, desc, input);
    if (type === 'object') return this.object(base, s, desc, input);
    if (type.includes('|'))
      return {
        ok: false,
        reason: `it is one of several types (${type.split('|').join(', ')}); a field has one`,
      };
    return { ok: false, reason: `type ${JSON.stringify(type)} is not one a field can hold` };
  }

  private scalar(
    base: Partial<DraftField> & { name: string },
    type: ScalarType,
    s: JsonObject,
    describe: string | undefined,
    input: FieldInput,
  ): Mapped {
    const c = constraints(s, type);
    if ('reason' in c) return { ok: false, reason: c.reason };
    const withValues = withEnum(
      { ...base, type, ...c.props, ...(describe && { describe }) },
      s.enum,
      type,
    );
    if (!withValues.ok) return withValues;
    let field = withValues.field;
    if (input.place !== 'path' && !input.required) field = withDefault(field, s.default);
    return { ok: true, field };
  }

  private array(
    base: Partial<DraftField> & { name: string },
    s: JsonObject,
    describe: string | undefined,
    input: FieldInput,
  ): Mapped {
    if (input.place === 'path') return this.pathArray(base, s, describe, input);
    const bounds = {
      ...(nonNegative(s.minItems) !== undefined && { minItems: nonNegative(s.minItems) }),
      ...(nonNegative(s.maxItems) !== undefined && { maxItems: nonNegative(s.maxItems) }),
    };
    if (bounds.minItems !== undefined && bounds.maxItems !== undefined) {
      if (bounds.minItems > bounds.maxItems) delete bounds.maxItems;
    }
    const items = s.items === undefined ? undefined : this.flatten(s.items);
    const rawArray = (why: string): Mapped =>
      input.place === 'query'
        ? { ok: false, reason: `${why}; query parameters take scalars and arrays of scalars` }
        : rawField(base, 'array', describe, why);
    if (items === undefined)
      return input.place === 'query'
        ? {
            ok: true,
            field: { ...base, type: 'string[]', ...bounds, ...(describe && { describe }) },
          }
        : rawArray('its items have no schema');
    if (items.kind === 'fail')
      return items.union && input.place === 'body'
        ? rawArray(`its items are one of several types (${items.union.join(', ')})`)
        : { ok: false, reason: `its items: ${items.reason}` };
    if (items.kind === 'raw') return rawArray(`its items: ${items.why}`);
    const it = items.s;
    const itemType = typeOf(it) ?? (input.place === 'query' ? 'string' : undefined);
    if (itemType !== undefined && SCALARS.has(itemType)) {
      const c = constraints(it, itemType as ScalarType);
      if ('reason' in c) return { ok: false, reason: `its items: ${c.reason}` };
      const field: DraftField = {
        ...base,
        type: `${itemType}[]` as FieldType,
        ...c.props,
        ...bounds,
        ...(describe && { describe }),
      };
      return withEnum(field, it.enum, itemType as ScalarType);
    }
    if (itemType === 'object' && input.place === 'body') {
      const obj = this.within(items.origins, () => this.object(base, it, describe, input));
      if (!obj.ok) return obj;
      if (obj.field.type === 'raw')
        return rawArray(obj.field.lead?.[0]?.slice(RAW_LEAD.length) ?? 'free-form items');
      return { ok: true, field: { ...obj.field, type: 'object[]', ...bounds } };
    }
    return rawArray(
      itemType === 'array' ? 'it is an array of arrays' : 'its items are not scalars',
    );
  }

  /**
   * A path array (style simple, the default): its items comma-joined in one segment,
   * each percent-encoded. Grants send string[] and integer[] so; an empty array would
   * empty the segment, so at least one item. Typed as a query array would be.
   */
  private pathArray(
    base: Partial<DraftField> & { name: string },
    s: JsonObject,
    describe: string | undefined,
    input: FieldInput,
  ): Mapped {
    const m = this.array(base, s, describe, { ...input, place: 'query' });
    const holds = 'a path segment holds strings or integers, comma-joined';
    if (!m.ok)
      return { ok: false, reason: `it is an array a path cannot hold (${m.reason}); ${holds}` };
    const { minItems, maxItems, ...field } = m.field;
    if (field.type !== 'string[]' && field.type !== 'integer[]')
      return { ok: false, reason: `it is an array of ${field.type.slice(0, -2)}; ${holds}` };
    const least = Math.max(1, minItems ?? 1);
    return {
      ok: true,
      field: {
        ...field,
        ...(least > 1 && { minItems: least }),
        ...(maxItems !== undefined && maxItems >= least && { maxItems }),
      },
    };
  }

  private object(
    base: Partial<DraftField> & { name: string },
    s: JsonObject,
    describe: string | undefined,
    input: FieldInput,
  ): Mapped {
    if (input.place !== 'body')
      return {
        ok: false,
        reason: `it is an object; ${input.place} parameters take scalars${input.place === 'query' ? ' and arrays of scalars' : ''}`,
      };
    const raw = (why: string): Mapped => rawField(base, 'object', describe, why);
    if (!isObject(s.properties) || Object.keys(s.properties).length === 0)
      return raw('a free-form object');
    if (input.depth > MAX_OBJECT_DEPTH) return raw(`nested deeper than ${MAX_OBJECT_DEPTH} levels`);
    if (this.fieldsLeft < Object.keys(s.properties).length)
      return raw(`the grant's budget of ${MAX_GRANT_FIELDS} typed fields is spent`);
    const block = this.properties(s, input.depth + 1);
    if (block.fields.length === 0) return raw('none of its fields can be typed');
    return {
      ok: true,
      field: {
        ...base,
        type: 'object',
        ...(describe && { describe }),
        fields: block.fields,
        ...(block.notes.length > 0 && { notes: block.notes }),
      },
    };
  }

  /** The fields of an object schema (request side: readOnly properties are not input). */
  properties(s: JsonObject, depth: number): { fields: DraftField[]; notes: string[] } {
    return this.within([s], () => this.ownProperties(s, depth));
  }

  private ownProperties(s: JsonObject, depth: number): { fields: DraftField[]; notes: string[] } {
    const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]) : []);
    const fields: DraftField[] = [];
    const notes: string[] = [];
    const taken = new Set<string>();
    for (const [key, prop] of Object.entries(isObject(s.properties) ? s.properties : {})) {
      const r = this.deref(prop);
      if (r.s?.readOnly === true || (isObject(prop) && prop.readOnly === true)) continue;
      if (key === RESERVED_NAME) {
        notes.push(`field ${JSON.stringify(key)} left out: ${reservedNote(key)}`);
        continue;
      }
      const name = uniqueName(fieldName(key), taken);
      const mapped = this.field({
        name,
        upstream: key,
        schema: prop,
        required: required.has(key),
        ...(isObject(prop) && typeof prop.description === 'string'
          ? { describe: fieldDescription(prop.description) }
          : {}),
        place: 'body',
        depth,
      });
      if (mapped.ok) {
        taken.add(name);
        fields.push(mapped.field);
        this.fieldsLeft -= 1;
      } else notes.push(`field ${JSON.stringify(key)} left out: ${mapped.reason}`);
    }
    return { fields, notes };
  }
}

/**
 * A path segment or query value is text whatever its type: a union of scalars is sent
 * as a string, and in a query a union of a scalar and an array of them as strings.
 */
function textUnion(kinds: readonly (string | undefined)[], place: Place): string | undefined {
  if (kinds.every((k) => k !== undefined && SCALARS.has(k))) return 'string';
  if (place === 'query' && kinds.every((k) => k === 'array' || (k !== undefined && SCALARS.has(k))))
    return 'array';
  return undefined;
}

function kindOf(s: JsonObject): { as?: 'object' | 'array' } {
  const t = typeOf(s);
  return t === 'object' || t === 'array' ? { as: t } : {};
}

function isNullOnly(s: JsonObject): boolean {
  return s.type === 'null' || (Array.isArray(s.type) && s.type.every((t) => t === 'null'));
}

/** Whether an alternative says what the value is (not only which fields are required). */
function hasShape(s: JsonObject): boolean {
  return (
    s.type !== undefined ||
    s.properties !== undefined ||
    s.items !== undefined ||
    s.enum !== undefined ||
    s.const !== undefined
  );
}

/** The JSON type a schema says, `null` taken out (3.1 `["string","null"]`, 3.0 nullable). */
export function typeOf(s: JsonObject): string | undefined {
  let t = s.type;
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== 'null');
    if (rest.length === 1) t = rest[0];
    else if (rest.length === 2 && rest.includes('integer') && rest.includes('number')) t = 'number';
    else if (rest.length === 0) t = undefined;
    else return `${rest.join('|')}`;
  }
  if (typeof t === 'string') return t;
  if (s.properties !== undefined || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined) return 'array';
  const values = Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : [];
  const kinds = new Set(values.filter((v) => v !== null).map((v) => typeof v));
  if (kinds.size === 1) {
    const k = [...kinds][0]!;
    if (k === 'string' || k === 'boolean') return k;
    if (k === 'number')
      return values.every((v) => v === null || Number.isInteger(v)) ? 'integer' : 'number';
  }
  return undefined;
}

function mergeSchemas(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...b, ...a };
  if (isObject(a.properties) || isObject(b.properties))
    out.properties = {
      ...(isObject(b.properties) ? b.properties : {}),
      ...(isObject(a.properties) ? a.properties : {}),
    };
  const req = [
    ...(Array.isArray(a.required) ? a.required : []),
    ...(Array.isArray(b.required) ? b.required : []),
  ];
  if (req.length > 0) out.required = [...new Set(req)];
  if (a.type === undefined && b.type !== undefined) out.type = b.type;
  return out;
}

function nonNegative(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined;
}

function finite(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

type Props = Partial<
  Pick<DraftField, 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern' | 'format'>
>;

/** Bounds, lengths, pattern and format of a scalar schema; a refused pattern refuses the field. */
function constraints(s: JsonObject, type: ScalarType): { props: Props } | { reason: string } {
  const props: { -readonly [K in keyof Props]: Props[K] } = {};
  if (type === 'integer' || type === 'number') {
    let min = finite(s.minimum);
    let max = finite(s.maximum);
    // 3.1 gives exclusive bounds as numbers, 3.0 as booleans beside minimum/maximum.
    const exMin = s.exclusiveMinimum === true ? min : finite(s.exclusiveMinimum);
    const exMax = s.exclusiveMaximum === true ? max : finite(s.exclusiveMaximum);
    if (exMin !== undefined)
      min = type === 'integer' && Number.isInteger(exMin) ? exMin + 1 : exMin;
    if (exMax !== undefined)
      max = type === 'integer' && Number.isInteger(exMax) ? exMax - 1 : exMax;
    if (type === 'integer') {
      if (min !== undefined) min = Math.ceil(min);
      if (max !== undefined) max = Math.floor(max);
    }
    // A bound no double holds exactly (int64's 2^63-1, even 2^53) is beyond every value
    // the gateway takes for a number (±2^53-1): as a bound it says nothing, and the
    // spec language refuses to write it.
    if (min !== undefined && Number.isInteger(min) && !Number.isSafeInteger(min)) min = undefined;
    if (max !== undefined && Number.isInteger(max) && !Number.isSafeInteger(max)) max = undefined;
    if (min !== undefined && max !== undefined && min > max) min = max = undefined;
    if (min !== undefined) props.min = min;
    if (max !== undefined) props.max = max;
  }
  if (type === 'string') {
    const minLength = nonNegative(s.minLength);
    const maxLength = nonNegative(s.maxLength);
    if (minLength !== undefined && (maxLength === undefined || minLength <= maxLength))
      props.minLength = minLength;
    if (maxLength !== undefined && (minLength === undefined || minLength <= maxLength))
      props.maxLength = maxLength;
    if (typeof s.pattern === 'string') {
      const check = checkPattern(s.pattern);
      if (!check.ok)
        return {
          reason: `its pattern ${JSON.stringify(s.pattern)} ${check.unsafe ? 'fails our safety check' : 'is not a valid regular expression here'} (${check.reason})`,
        };
      props.pattern = s.pattern;
    }
    if (typeof s.format === 'string' && (FORMATS as readonly string[]).includes(s.format))
      props.format = s.format as Format;
  }
  return { props };
}

/** The spec compiler's own check of one value against a field (type, bounds, pattern, enum). */
function misfit(field: DraftField, value: Scalar, ignoreEnum: boolean): boolean {
  const at = { line: 1, column: 1 };
  const spec: FieldSpec = {
    name: field.name,
    type: field.type,
    at,
    required: false,
    ...(field.min !== undefined && { min: { value: field.min, at } }),
    ...(field.max !== undefined && { max: { value: field.max, at } }),
    ...(field.minLength !== undefined && { minLength: { value: field.minLength, at } }),
    ...(field.maxLength !== undefined && { maxLength: { value: field.maxLength, at } }),
    ...(field.pattern !== undefined && { pattern: { value: field.pattern, at } }),
    ...(field.format !== undefined && { format: field.format }),
    ...(field.enum && { enum: field.enum.map((value) => ({ value, at })) }),
  };
  return scalarMisfit(spec, value, { ignoreEnum }) !== undefined;
}

function fitsType(v: unknown, type: ScalarType): v is Scalar {
  if (type === 'string') return typeof v === 'string';
  if (type === 'boolean') return typeof v === 'boolean';
  if (type === 'integer') return typeof v === 'number' && Number.isSafeInteger(v);
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * The enum values that fit the field's type and bounds, with a note naming those that do
 * not (never the whole list dropped: the field would take more than the document
 * allows). When none fits, the field takes nothing the document allows: it is left out.
 */
function withEnum(field: DraftField, values: unknown, type: ScalarType): Mapped {
  if (!Array.isArray(values)) return { ok: true, field };
  const typed = [...new Set(values.filter((v): v is Scalar => fitsType(v, type)))];
  const fit = typed.filter((v) => !misfit(field, v, true));
  const dropped = typed.filter((v) => !fit.includes(v));
  const list = (vs: readonly Scalar[]): string => vs.map((v) => JSON.stringify(v)).join(', ');
  if (fit.length === 0)
    return typed.length === 0
      ? { ok: true, field }
      : { ok: false, reason: `none of its enum values (${list(typed)}) fits its bounds` };
  if (dropped.length === 0) return { ok: true, field: { ...field, enum: fit } };
  const note =
    dropped.length === 1
      ? `enum value ${list(dropped)} dropped: it breaks the field's bounds`
      : `enum values ${list(dropped)} dropped: they break the field's bounds`;
  return { ok: true, field: { ...field, enum: fit, notes: [...(field.notes ?? []), note] } };
}

function withDefault(field: DraftField, value: unknown): DraftField {
  const type = field.type.replace('[]', '') as ScalarType;
  if (field.type.endsWith('[]') || !fitsType(value, type)) return field;
  return misfit(field, value, false) ? field : { ...field, default: value };
}
