/**
 * The `restrict { <argument> <value>... [pattern="..."] }` kind (spec-language.md,
 * "restrict"): a top-level allowlist by argument name, whose meaning is per grant. The
 * check of one grant's arguments against it, the warning for an entry no grant uses,
 * and the RestrictDescriptors a tool carries.
 */
import type { Claims } from '../argument-claims.js';
import type { Diagnostics, Located, Subject } from '../diagnostics.js';
import type { RestrictDescriptor } from '../descriptor.js';
import { scalarMisfit } from '../field-schema.js';
import { prop, propAt, type NodeKind, type Scalar } from '../kdl-reader.js';
import { reportPattern } from './field.js';

export interface RestrictSpec {
  readonly argument: string;
  readonly values?: readonly Located<Scalar>[];
  readonly pattern?: Located<string>;
}

const RESTRICT_ENTRY: NodeKind<Located<RestrictSpec>> & { once: (name: string) => string } = {
  rest: { what: 'an allowed value', type: 'scalar' },
  props: { pattern: { type: 'string' } },
  once: (name) => `${name} is restricted twice; list every value in one line`,
  build(n, { diag }) {
    const subject = [`restrict ${n.name}`];
    const values = n.args.filter((v): v is Located<Scalar> => v !== undefined);
    for (const v of values)
      if (v.value === null)
        diag.error('SPEC_VALUE_TYPE', v.at, subject, 'an allowed value cannot be #null');
    const pattern = prop<string>(n, 'pattern');
    if (values.length === 0 && pattern === undefined) {
      diag.error('SPEC_MISSING', n.at, subject, 'give the allowed values or pattern="..."');
      return undefined;
    }
    const value: RestrictSpec = {
      argument: n.name,
      ...(values.length > 0 && { values }),
      ...(pattern !== undefined && { pattern: { value: pattern, at: propAt(n, 'pattern') } }),
    };
    return { value, at: n.at };
  },
};

export const RESTRICT: NodeKind<Located<RestrictSpec>[]> = {
  children: { kinds: {}, other: RESTRICT_ENTRY },
  inner: () => ['restrict'],
  build: (n) => n.children.map((c) => c.value as Located<RestrictSpec>),
};

/** Each entry's own pattern, before any grant is looked at. */
export function checkRestrictPatterns(
  restrict: readonly Located<RestrictSpec>[],
  diag: Diagnostics,
): void {
  for (const { value: r } of restrict)
    if (r.pattern) reportPattern(r.pattern, diag, [`restrict ${r.argument}`]);
}

/** A restrict entry that names one of this grant's arguments must fit it. */
export function checkRestrict(
  { value: r, at }: Located<RestrictSpec>,
  claims: Claims,
  diag: Diagnostics,
  used: Set<string>,
  grant: Subject,
): void {
  const field = claims.fieldOf.get(r.argument);
  if (!field) return;
  used.add(r.argument);
  const subject = [...grant, `restrict ${r.argument}`];
  if (field.type === 'object' || field.type === 'object[]' || field.type === 'raw') {
    diag.error(
      'SPEC_RESTRICT',
      at,
      subject,
      `argument ${r.argument} is of type ${field.type}; restrict applies to scalars and scalar arrays`,
    );
    return;
  }
  for (const v of r.values ?? []) {
    const misfit = scalarMisfit(field, v.value, { ignoreEnum: true });
    if (misfit)
      diag.error(
        'SPEC_RESTRICT',
        v.at,
        subject,
        `allowed value ${misfit} for argument ${r.argument} (${field.type})`,
      );
  }
  // The schema states the allowlist as the field's enum intersected with it
  // (restrict-schema.ts): with nothing in common, no call could ever pass.
  if (r.values && field.enum && !r.values.some((v) => field.enum!.some((e) => e.value === v.value)))
    diag.error(
      'SPEC_RESTRICT',
      at,
      subject,
      `no allowed value of restrict ${r.argument} is in the enum of argument ${r.argument} (${field.enum.map((e) => JSON.stringify(e.value)).join(', ')}): no call could pass both`,
    );
  if (r.pattern && !field.type.startsWith('string'))
    diag.error(
      'SPEC_RESTRICT',
      r.pattern.at,
      subject,
      `pattern= applies to string arguments; ${r.argument} is of type ${field.type}`,
    );
  // A default is filled in after the allowlist runs, so it must pass the allowlist here.
  if (field.default) {
    const value = field.default.value;
    const listed = !r.values || r.values.some((v) => v.value === value);
    const matches = !r.pattern || (typeof value === 'string' && safeMatch(r.pattern.value, value));
    if (!listed || !matches)
      diag.error(
        'SPEC_RESTRICT',
        field.default.at,
        [...grant, `argument ${r.argument}`],
        `default ${JSON.stringify(value)} is not allowed by restrict ${r.argument}`,
      );
  }
}

function safeMatch(source: string, value: string): boolean {
  try {
    return new RegExp(source, 'u').test(value);
  } catch {
    return true; // an invalid pattern is reported on its own
  }
}

/** An entry that matched no grant's argument restricts nothing: said, not refused. */
export function warnUnusedRestrict(
  restrict: readonly Located<RestrictSpec>[],
  used: ReadonlySet<string>,
  diag: Diagnostics,
): void {
  for (const { value: r, at } of restrict) {
    if (!used.has(r.argument))
      diag.warn(
        'SPEC_RESTRICT_UNUSED',
        at,
        [`restrict ${r.argument}`],
        `no grant has an argument named ${r.argument}`,
      );
  }
}

/** The entries that name one of a tool's arguments, as its descriptor carries them. */
export function lowerRestrict(
  restrict: readonly Located<RestrictSpec>[],
  names: ReadonlySet<string>,
): RestrictDescriptor[] {
  return restrict
    .filter((r) => names.has(r.value.argument))
    .map(({ value: r }) => ({
      argument: r.argument,
      ...(r.values && { values: r.values.map((v) => v.value) }),
      ...(r.pattern && { pattern: r.pattern.value }),
    }));
}
