/**
 * Field nodes: `<name> "<type>" [properties] [{ children }]` (spec-language.md, "Fields").
 * Shape and applicability are checked here; whether a default or an enum value fits
 * its field is checked by the compiler against the field's own JSON Schema.
 */
import type { Diagnostics, Subject } from './diagnostics.js';
import { NodeReader, type Scalar } from './kdl-reader.js';
import { FIELD_TYPES, FORMATS, type FieldSpec, type FieldType, type Format } from './spec-types.js';
import type { Position } from './diagnostics.js';

/** Argument names: safe as JSON keys and as identifiers in every client we know. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The one name FIELD_NAME allows that no JSON key may carry through a JavaScript
 * object: assigning `__proto__` sets a prototype. Other Object.prototype names
 * (`toString`, `constructor`) are ordinary names (engine/null-prototype.ts).
 */
export const RESERVED_NAME = '__proto__';

export function reservedMessage(what: string, name: string): string {
  return `${what} ${JSON.stringify(name)} is reserved: it names a JavaScript object's prototype, which JSON readers (this gateway's and many upstreams') treat specially`;
}

const NUMERIC = new Set<FieldType>(['integer', 'number', 'integer[]', 'number[]']);
const STRINGY = new Set<FieldType>(['string', 'string[]']);
const ARRAYS = new Set<FieldType>(['string[]', 'integer[]', 'number[]', 'boolean[]', 'object[]']);
const SCALARS = new Set<FieldType>(['string', 'integer', 'number', 'boolean']);
const OBJECTS = new Set<FieldType>(['object', 'object[]']);

/** Which property applies to which field types; anything else is SPEC_PROPERTY_TYPE. */
const APPLIES: Record<string, (t: FieldType) => boolean> = {
  min: (t) => NUMERIC.has(t),
  max: (t) => NUMERIC.has(t),
  'min-length': (t) => STRINGY.has(t),
  'max-length': (t) => STRINGY.has(t),
  pattern: (t) => STRINGY.has(t),
  format: (t) => STRINGY.has(t),
  'min-items': (t) => ARRAYS.has(t),
  'max-items': (t) => ARRAYS.has(t),
  default: (t) => SCALARS.has(t),
  kind: (t) => t === 'raw',
};

export function isScalarType(t: FieldType): boolean {
  return SCALARS.has(t);
}

export function isScalarOrScalarArray(t: FieldType): boolean {
  return t !== 'object' && t !== 'object[]' && t !== 'raw';
}

export interface FieldContext {
  readonly diag: Diagnostics;
  /** "grant list_issues", "query field" — prefixes the messages of this block. */
  readonly subject: Subject;
  readonly label: string;
  /** Nesting depth: 0 for a block's own fields. */
  readonly depth: number;
}

export function parseFields(
  readers: readonly NodeReader[],
  ctx: FieldContext,
  skip: ReadonlySet<string> = new Set(),
): FieldSpec[] {
  const fields: FieldSpec[] = [];
  const seen = new Map<string, Position>();
  for (const r of readers) {
    if (skip.has(r.name)) continue;
    const field = parseField(r, ctx);
    if (!field) continue;
    if (seen.has(field.name)) {
      ctx.diag.error(
        'SPEC_DUPLICATE',
        field.at,
        ctx.subject,
        `${ctx.label} ${field.name} is declared twice (first at line ${seen.get(field.name)!.line})`,
      );
      continue;
    }
    seen.set(field.name, field.at);
    fields.push(field);
  }
  return fields;
}

function parseField(r: NodeReader, ctx: FieldContext): FieldSpec | undefined {
  const subject = [...ctx.subject, `${ctx.label} ${r.name}`];
  const { diag } = ctx;
  const view = new NodeReader(r.node, diag, subject);
  if (view.name === RESERVED_NAME) {
    diag.error('SPEC_RESERVED_NAME', view.at, ctx.subject, reservedMessage(ctx.label, view.name));
    return undefined;
  }
  if (!FIELD_NAME.test(view.name)) {
    diag.error(
      'SPEC_VALUE_TYPE',
      view.at,
      ctx.subject,
      `${ctx.label} name ${JSON.stringify(view.name)} must match ${FIELD_NAME.source}`,
    );
    return undefined;
  }
  const typeText = view.string(0, 'a type such as "string" or "integer"');
  if (typeText === undefined) return undefined;
  if (!(FIELD_TYPES as readonly string[]).includes(typeText)) {
    diag.error(
      'SPEC_UNKNOWN_TYPE',
      view.argAt(0),
      subject,
      `unknown type ${JSON.stringify(typeText)} (known: ${FIELD_TYPES.join(', ')})`,
    );
    return undefined;
  }
  const type = typeText as FieldType;

  for (const [prop, applies] of Object.entries(APPLIES)) {
    if (view.has(prop) && !applies(type)) {
      diag.error(
        'SPEC_PROPERTY_TYPE',
        view.propAt(prop),
        subject,
        `${prop}= does not apply to type ${type}`,
      );
      view.propEntry(prop); // reported; do not report it again as unknown
    }
  }
  const applies = (prop: string): boolean => view.has(prop) && APPLIES[prop]!(type);

  const required = view.propBoolean('required') ?? false;
  const describe = view.propString('describe');
  const def = applies('default') ? view.propScalar('default') : undefined;
  const min = applies('min') ? view.propNumber('min') : undefined;
  const max = applies('max') ? view.propNumber('max') : undefined;
  const minLength = applies('min-length') ? view.propInteger('min-length') : undefined;
  const maxLength = applies('max-length') ? view.propInteger('max-length') : undefined;
  const minItems = applies('min-items') ? view.propInteger('min-items') : undefined;
  const maxItems = applies('max-items') ? view.propInteger('max-items') : undefined;
  const patternText = applies('pattern') ? view.propString('pattern') : undefined;
  const pattern =
    patternText === undefined ? undefined : { source: patternText, at: view.propAt('pattern') };
  const format = applies('format') ? parseFormat(view, subject) : undefined;
  const as = view.propString('as');
  const argName = view.propString('arg');
  const arg = argName === undefined ? undefined : { name: argName, at: view.propAt('arg') };
  const claim = view.propString('from-claim');
  const fromClaim = claim === undefined ? undefined : { claim, at: view.propAt('from-claim') };
  const kind = applies('kind') ? parseKind(view, subject) : undefined;
  view.finish();
  // Every name a value travels under (upstream key, projected argument, claim).
  for (const [prop, name] of [
    ['as', as],
    ['arg', argName],
    ['from-claim', claim],
  ] as const) {
    if (name === RESERVED_NAME)
      diag.error(
        'SPEC_RESERVED_NAME',
        view.propAt(prop),
        subject,
        reservedMessage(`${prop}=`, name),
      );
  }

  if (min !== undefined && max !== undefined && min > max) {
    diag.error('SPEC_VALUE_TYPE', view.propAt('max'), subject, `max=${max} is below min=${min}`);
  }
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    diag.error(
      'SPEC_VALUE_TYPE',
      view.propAt('max-length'),
      subject,
      `max-length=${maxLength} is below min-length=${minLength}`,
    );
  }
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) {
    diag.error(
      'SPEC_VALUE_TYPE',
      view.propAt('max-items'),
      subject,
      `max-items=${maxItems} is below min-items=${minItems}`,
    );
  }
  if (def && required) {
    diag.error(
      'SPEC_DEFAULT',
      def.at,
      subject,
      'a required field never uses its default; drop one of the two',
    );
  }

  let enumValues: { value: Scalar; at: { line: number; column: number } }[] | undefined;
  let fields: FieldSpec[] | undefined;
  const children = view.children(subject);
  const fieldChildren = children.filter((c) => c.name !== 'enum');
  for (const c of children.filter((c) => c.name === 'enum')) {
    if (!SCALARS.has(type) && !(ARRAYS.has(type) && !OBJECTS.has(type))) {
      diag.error('SPEC_PROPERTY_TYPE', c.at, subject, `enum does not apply to type ${type}`);
      continue;
    }
    if (enumValues) {
      diag.error(
        'SPEC_DUPLICATE',
        c.at,
        subject,
        'enum is given twice; list every value in one enum node',
      );
      continue;
    }
    enumValues = c.scalarArgs();
    if (enumValues.length === 0)
      diag.error('SPEC_MISSING', c.at, subject, 'enum needs at least one value');
    c.finish();
    c.noChildren();
  }
  if (OBJECTS.has(type)) {
    fields = parseFields(fieldChildren, { ...ctx, subject, label: 'field', depth: ctx.depth + 1 });
    if (fields.length === 0 && fieldChildren.length === 0) {
      diag.error(
        'SPEC_MISSING',
        view.at,
        subject,
        `an ${type} field needs at least one child field`,
      );
    }
  } else {
    for (const c of fieldChildren) {
      diag.error(
        'SPEC_UNKNOWN_NODE',
        c.at,
        subject,
        `a ${type} field takes only \`enum\` as a child, found \`${c.name}\``,
      );
    }
  }

  return {
    name: view.name,
    type,
    typeAt: view.argAt(0),
    at: view.at,
    required,
    ...(def !== undefined && { default: def }),
    ...(describe !== undefined && { describe }),
    ...(min !== undefined && { min }),
    ...(max !== undefined && { max }),
    ...(minLength !== undefined && { minLength }),
    ...(maxLength !== undefined && { maxLength }),
    ...(pattern !== undefined && { pattern }),
    ...(format !== undefined && { format }),
    ...(minItems !== undefined && { minItems }),
    ...(maxItems !== undefined && { maxItems }),
    ...(as !== undefined && { as, asAt: view.propAt('as') }),
    ...(arg !== undefined && { arg }),
    ...(fromClaim !== undefined && { fromClaim }),
    ...(kind !== undefined && { kind }),
    ...(enumValues !== undefined && { enum: enumValues }),
    ...(fields !== undefined && { fields }),
  };
}

function parseFormat(view: NodeReader, subject: Subject): Format | undefined {
  const f = view.propString('format');
  if (f === undefined) return undefined;
  if (!(FORMATS as readonly string[]).includes(f)) {
    view.diag.error(
      'SPEC_VALUE_TYPE',
      view.propAt('format'),
      subject,
      `format=${JSON.stringify(f)} is not one of ${FORMATS.join(', ')}`,
    );
    return undefined;
  }
  return f as Format;
}

function parseKind(view: NodeReader, subject: Subject): 'object' | 'array' | undefined {
  const k = view.propString('kind');
  if (k === undefined) return undefined;
  if (k !== 'object' && k !== 'array') {
    view.diag.error(
      'SPEC_VALUE_TYPE',
      view.propAt('kind'),
      subject,
      `kind=${JSON.stringify(k)} must be "object" or "array"`,
    );
    return undefined;
  }
  return k;
}
