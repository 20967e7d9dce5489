/**
 * The field node kind: `<name> "<type>" [properties] [{ children }]` (spec-language.md,
 * "Fields"). The type picks the row: which properties apply, and whether the children
 * are an `enum` or nested fields. Whether values fit their field is for the checker.
 */
import type { Located } from './diagnostics.js';
import {
  argAt,
  camelProps,
  prop,
  propAt,
  type Built,
  type NodeKind,
  type ReadContext,
  type Scalar,
  type Table,
  type ValueDecl,
} from './kdl-reader.js';
import { FIELD_TYPES, FORMATS, type FieldSpec, type FieldType, type Format } from './spec-types.js';

/** Argument names: safe as JSON keys and as identifiers in every client we know. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

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

const COUNT: ValueDecl = { type: 'integer' };
const PROPS: Record<string, ValueDecl> = {
  required: { type: 'boolean' },
  describe: { type: 'string' },
  default: { type: 'scalar' },
  min: { type: 'number' },
  max: { type: 'number' },
  'min-length': COUNT,
  'max-length': COUNT,
  'min-items': COUNT,
  'max-items': COUNT,
  pattern: { type: 'string' },
  format: { type: 'string' },
  as: { type: 'string' },
  arg: { type: 'string' },
  'from-claim': { type: 'string' },
  kind: { type: 'string' },
};

const ENUM: NodeKind<Located<Scalar>[]> = {
  rest: { what: 'an enum value', type: 'scalar' },
  build(n, { diag, subject }) {
    if (n.args.length === 0)
      diag.error('SPEC_MISSING', n.at, subject, 'enum needs at least one value');
    return n.args.filter((a): a is Located<Scalar> => a !== undefined);
  },
};

/** The children a field of `type` may hold. */
function childrenOf(type: FieldType): Table {
  const enumRow = isScalarOrScalarArray(type)
    ? { ...ENUM, once: () => 'enum is given twice; list every value in one enum node' }
    : { ...ENUM, refuse: `enum does not apply to type ${type}` };
  return OBJECTS.has(type)
    ? { kinds: { enum: enumRow }, other: FIELD, label: 'field' }
    : {
        kinds: { enum: enumRow },
        unknown: (name) => `a ${type} field takes only \`enum\` as a child, found \`${name}\``,
      };
}

/** The row of each field type, filled in below FIELD: an object's children are fields. */
const BY_TYPE: Record<string, Partial<NodeKind>> = {};

function oneOf<T extends string>(
  n: Parameters<FieldKind['build']>[0],
  ctx: ReadContext,
  name: string,
  allowed: readonly T[],
  why: string,
): T | undefined {
  const value = prop<string>(n, name);
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  ctx.diag.error(
    'SPEC_VALUE_TYPE',
    propAt(n, name),
    ctx.subject,
    `${name}=${JSON.stringify(value)} ${why}`,
  );
  return undefined;
}

type FieldKind = NodeKind<FieldSpec>;

/**
 * The one name FIELD_NAME allows that no JSON key may carry through a JavaScript
 * object: assigning `__proto__` sets a prototype. Other Object.prototype names
 * (`toString`, `constructor`) are ordinary names (engine/null-prototype.ts).
 */
export const RESERVED_NAME = '__proto__';

export function reservedMessage(what: string, name: string): string {
  return `${what} ${JSON.stringify(name)} is reserved: it names a JavaScript object's prototype, which JSON readers (this gateway's and many upstreams') treat specially`;
}

/** Every name a value travels under (upstream key, projected argument, claim). */
const RENAMING_PROPS = ['as', 'arg', 'from-claim'] as const;

export const FIELD: FieldKind = {
  accepts(name, at, { diag, subject, label }) {
    if (name === RESERVED_NAME) {
      diag.error('SPEC_RESERVED_NAME', at, subject, reservedMessage(label ?? 'field', name));
      return false;
    }
    if (FIELD_NAME.test(name)) return true;
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      subject,
      `${label} name ${JSON.stringify(name)} must match ${FIELD_NAME.source}`,
    );
    return false;
  },
  self: (name, { subject, label }) => [...subject, `${label} ${name}`],
  args: [{ what: 'a type such as "string" or "integer"', type: 'string' }],
  props: PROPS,
  variants: {
    arg: 0,
    kinds: BY_TYPE,
    missing: 'stop',
    unknown: (type) => ({
      code: 'SPEC_UNKNOWN_TYPE',
      message: `unknown type ${JSON.stringify(type)} (known: ${FIELD_TYPES.join(', ')})`,
      stop: true,
    }),
  },
  build(n, ctx) {
    const type = n.variant as FieldType;
    for (const p of RENAMING_PROPS)
      if (prop(n, p) === RESERVED_NAME)
        ctx.diag.error(
          'SPEC_RESERVED_NAME',
          propAt(n, p),
          ctx.subject,
          reservedMessage(`${p}=`, RESERVED_NAME),
        );
    const format = oneOf<Format>(n, ctx, 'format', FORMATS, `is not one of ${FORMATS.join(', ')}`);
    const kind = oneOf(n, ctx, 'kind', ['object', 'array'] as const, 'must be "object" or "array"');
    const enumValues = n.children.find((c) => c.name === 'enum')?.value as
      Located<Scalar>[] | undefined;
    let fields: FieldSpec[] | undefined;
    if (OBJECTS.has(type)) {
      fields = uniqueFields(n.children, { ...ctx, label: 'field' });
      const written = (n.node.children?.nodes ?? []).filter((c) => c.getName() !== 'enum');
      if (written.length === 0)
        ctx.diag.error(
          'SPEC_MISSING',
          n.at,
          ctx.subject,
          `an ${type} field needs at least one child field`,
        );
    }
    // Every property keeps its place; the ones no check needs are plain values.
    return {
      ...(camelProps(n, true) as Partial<FieldSpec>),
      name: n.name,
      type,
      typeAt: argAt(n, 0),
      at: n.at,
      required: prop<boolean>(n, 'required') ?? false,
      describe: prop(n, 'describe'),
      format,
      kind,
      enum: enumValues,
      fields,
    };
  },
};

/** The fields among `children`, a name declared twice refused (`ctx.label` names them). */
export function uniqueFields(children: readonly Built[], ctx: ReadContext): FieldSpec[] {
  const seen = new Map<string, FieldSpec>();
  for (const c of children) {
    if (!c.free) continue;
    const field = c.value as FieldSpec;
    const first = seen.get(field.name);
    if (first)
      ctx.diag.error(
        'SPEC_DUPLICATE',
        field.at,
        ctx.subject,
        `${ctx.label} ${field.name} is declared twice (first at line ${first.at.line})`,
      );
    else seen.set(field.name, field);
  }
  return [...seen.values()];
}

for (const type of FIELD_TYPES) {
  BY_TYPE[type] = {
    refused: Object.fromEntries(
      Object.entries(APPLIES)
        .filter(([, applies]) => !applies(type))
        .map(([p]) => [p, `${p}= does not apply to type ${type}`]),
    ),
    children: childrenOf(type),
  };
}
