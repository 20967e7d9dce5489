/**
 * The field kind: `<name> "<type>" [properties] [{ children }]` (spec-language.md,
 * "Fields"), and the blocks that hold fields (`query`, `body`, `params`, a path's
 * params) with their `exclusive` groups. The type picks the row: which properties
 * apply, and whether the children are an `enum` or nested fields. The checks here are
 * a field's own (bounds, enum values, defaults, patterns); where a field goes and what
 * it becomes is for the grant backend that holds it (placement.ts).
 */
import type { Node } from '@bgotink/kdl';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import { scalarMisfit } from '../field-schema.js';
import {
  FIELD_TYPES,
  FORMATS,
  type FieldSpec,
  type FieldType,
  type Format,
} from '../field-types.js';
import {
  argAt,
  camelProps,
  childrenNamed,
  positionOf,
  prop,
  propAt,
  readNode,
  type Built,
  type NodeKind,
  type ReadContext,
  type ReadNode,
  type Scalar,
  type Table,
  type TableRow,
  type ValueDecl,
} from '../kdl-reader.js';
import { FIELD_NAME, RESERVED_NAME, reservedMessage } from '../naming.js';
import { checkPattern } from '../pattern-safety.js';

/** `query`, `body` and `params`: fields, and groups of which at most one may be given. */
export interface FieldBlockSpec {
  readonly at: Position;
  readonly fields: readonly FieldSpec[];
  readonly exclusive: readonly Located<readonly Located<string>[]>[];
}

/** How a block's fields are named in messages ("query field per_page"). */
export type FieldLabel =
  'path param' | 'query field' | 'body field' | 'param' | 'argument' | 'field';

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
    ? { kinds: { enum: enumRow }, other: fieldRow('field') }
    : {
        kinds: { enum: enumRow },
        unknown: (name) => `a ${type} field takes only \`enum\` as a child, found \`${name}\``,
      };
}

/** The row of each field type, filled in below FIELD: an object's children are fields. */
const BY_TYPE: Record<string, Partial<NodeKind>> = {};

function oneOf<T extends string>(
  n: ReadNode,
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

/** Every name a value travels under (upstream key, projected argument, claim). */
const RENAMING_PROPS = ['as', 'arg', 'from-claim'] as const;

const FIELD: NodeKind<FieldSpec> = {
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
      fields = uniqueFields(n.children, ctx, 'field');
      const written = (n.node.children?.nodes ?? []).filter((c) => c.getName() !== 'enum');
      if (written.length === 0)
        ctx.diag.error(
          'SPEC_MISSING',
          n.at,
          ctx.subject,
          `an ${type} field needs at least one child field`,
        );
    }
    // Every property keeps its place; the ones no check needs are plain values. Set on
    // the object camelProps made, in the order (and so with the keys' order) that
    // `{ ...camelProps(n, true), name, … }` had, without copying it a field.
    const field = camelProps(n, true) as Record<string, unknown>;
    field.name = n.name;
    field.type = type;
    field.typeAt = argAt(n, 0);
    field.at = n.at;
    field.required = prop<boolean>(n, 'required') ?? false;
    field.describe = prop(n, 'describe');
    field.format = format;
    field.kind = kind;
    field.enum = enumValues;
    field.fields = fields;
    return field as unknown as FieldSpec;
  },
};

/**
 * A field, named freely in a block whose fields `label` names: a name that is no
 * argument name is refused before anything of the field is read, and every message
 * about the field names it ("query field per_page").
 */
export function fieldRow(label: FieldLabel): TableRow {
  return { read: (node, ctx) => readField(node, label, ctx) };
}

function readField(node: Node, label: FieldLabel, ctx: ReadContext): FieldSpec | undefined {
  const name = node.getName();
  const at = positionOf(node);
  const { diag, subject } = ctx;
  if (name === RESERVED_NAME) {
    diag.error('SPEC_RESERVED_NAME', at, subject, reservedMessage(label, name));
    return undefined;
  }
  if (!FIELD_NAME.test(name)) {
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      subject,
      `${label} name ${JSON.stringify(name)} must match ${FIELD_NAME.source}`,
    );
    return undefined;
  }
  return readNode(node, FIELD, { diag, subject: [...subject, `${label} ${name}`] });
}

/** The fields among `children`, a name declared twice refused. */
export function uniqueFields(
  children: readonly Built[],
  ctx: ReadContext,
  label: FieldLabel,
): FieldSpec[] {
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
        `${label} ${field.name} is declared twice (first at line ${first.at.line})`,
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

const EXCLUSIVE: NodeKind<FieldBlockSpec['exclusive'][number]> = {
  rest: { what: 'a field name', type: 'string' },
  build(n, { diag, subject }) {
    const names = n.args.filter((a): a is Located<string> => a !== undefined);
    if (names.length < 2)
      diag.error('SPEC_EXCLUSIVE', n.at, subject, '`exclusive` names at least two fields');
    return { value: names, at: n.at };
  },
};

/** The children of a block: fields named freely, and `exclusive` groups. */
export function blockTable(label: FieldLabel): Table {
  return { kinds: { exclusive: EXCLUSIVE }, other: fieldRow(label) };
}

/** What a block node read: its fields, a name declared twice refused, and its groups. */
export function fieldBlock(n: ReadNode, ctx: ReadContext, label: FieldLabel): FieldBlockSpec {
  return {
    at: n.at,
    fields: uniqueFields(n.children, ctx, label),
    exclusive: childrenNamed(n.children, 'exclusive'),
  };
}

/** A block node that holds nothing but fields and groups (`params`). */
export function blockKind(label: FieldLabel): NodeKind<FieldBlockSpec> {
  return { children: blockTable(label), build: (n, ctx) => fieldBlock(n, ctx, label) };
}

/** Each pair of bounds that must not contradict, and how messages name the upper one. */
const BOUND_PAIRS = [
  ['min', 'max', 'max'],
  ['minLength', 'maxLength', 'max-length'],
  ['minItems', 'maxItems', 'max-items'],
] as const;

/** Bounds that contradict each other, and a default no call can use, for every field. */
export function checkBounds(
  blocks: readonly (readonly [FieldLabel, readonly FieldSpec[]])[],
  diag: Diagnostics,
  subject: Subject,
): void {
  // A field's subject is made when a message or a nested field needs it: a clean
  // spec's thousands of fields need none.
  const walk = (f: FieldSpec, outer: Subject, label: string): void => {
    let here: Subject | undefined;
    const subjectHere = (): Subject => (here ??= [...outer, `${label} ${f.name}`]);
    for (const [lowKey, highKey, name] of BOUND_PAIRS) {
      const low = f[lowKey];
      const high = f[highKey];
      if (low && high && low.value > high.value)
        diag.error(
          'SPEC_VALUE_TYPE',
          high.at,
          subjectHere(),
          `${name}=${high.value} is below ${name.replace('max', 'min')}=${low.value}`,
        );
    }
    if (f.default && f.required)
      diag.error(
        'SPEC_DEFAULT',
        f.default.at,
        subjectHere(),
        'a required field never uses its default; drop one of the two',
      );
    for (const c of f.fields ?? []) walk(c, subjectHere(), 'field');
  };
  for (const [label, fields] of blocks) for (const f of fields) walk(f, subject, label);
}

/** Pattern, enum and default checks for a field and everything nested in it. */
export function checkFieldValues(
  f: FieldSpec,
  diag: Diagnostics,
  subject: Subject,
  label: FieldLabel = 'field',
): void {
  // Made when a message or a nested field needs it, as in checkBounds.
  let here: Subject | undefined;
  const subjectHere = (): Subject => (here ??= [...subject, `${label} ${f.name}`]);
  if (f.pattern && !checkPattern(f.pattern.value).ok) reportPattern(f.pattern, diag, subjectHere());
  for (const e of f.enum ?? []) {
    const misfit = scalarMisfit(f, e.value, { ignoreEnum: true });
    if (misfit) diag.error('SPEC_ENUM', e.at, subjectHere(), `enum value ${misfit} (${f.type})`);
  }
  if (f.default) {
    const misfit = scalarMisfit(f, f.default.value);
    if (misfit) diag.error('SPEC_DEFAULT', f.default.at, subjectHere(), `default ${misfit}`);
  }
  for (const child of f.fields ?? []) checkFieldValues(child, diag, subjectHere());
}

/** A `pattern=` that is no regular expression, or one that could backtrack for long. */
export function reportPattern(p: Located<string>, diag: Diagnostics, subject: Subject): void {
  const check = checkPattern(p.value);
  if (check.ok) return;
  if (check.unsafe)
    diag.error(
      'SPEC_PATTERN_UNSAFE',
      p.at,
      subject,
      `pattern ${JSON.stringify(p.value)}: ${check.reason}`,
    );
  else
    diag.error(
      'SPEC_PATTERN',
      p.at,
      subject,
      `pattern ${JSON.stringify(p.value)} is not a valid regular expression: ${check.reason}`,
    );
}

/** `exclusive` names fields of its own block that a call may leave out. */
export function checkExclusive(
  block: FieldBlockSpec | undefined,
  diag: Diagnostics,
  subject: Subject,
): void {
  for (const x of block?.exclusive ?? []) {
    for (const n of x.value) {
      const f = block!.fields.find((f) => f.name === n.value);
      const problem = !f
        ? 'which is not a field of this block'
        : f.required
          ? 'which is required: a required field cannot be left out'
          : f.default
            ? 'which has a default and so is always given'
            : undefined;
      if (problem)
        diag.error('SPEC_EXCLUSIVE', n.at, subject, `exclusive names ${n.value}, ${problem}`);
    }
  }
}
