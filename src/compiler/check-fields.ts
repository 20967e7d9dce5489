/** The meaning of fields: ranges, defaults, enum values and patterns (spec-language.md, "Fields"). */
import type { Diagnostics, Located, Subject } from './diagnostics.js';
import { scalarMisfit } from './field-schema.js';
import { checkPattern } from './pattern-safety.js';
import type { FieldBlockSpec, FieldSpec, GrantSpec } from './spec-types.js';

/** Every field a grant declares, with the label its messages use. */
function blocksOf(g: GrantSpec): [string, readonly FieldSpec[]][] {
  return [
    ['path param', g.path?.params ?? []],
    ['query field', g.query?.fields ?? []],
    ['body field', g.body?.fields ?? []],
    ['param', g.params?.fields ?? []],
  ];
}

/** Bounds that contradict each other, and a default no call can use, for every field. */
export function checkBounds(g: GrantSpec, diag: Diagnostics, subject: Subject): void {
  const walk = (f: FieldSpec, outer: Subject, label: string): void => {
    const here = [...outer, `${label} ${f.name}`];
    for (const [low, high, name] of [
      [f.min, f.max, 'max'],
      [f.minLength, f.maxLength, 'max-length'],
      [f.minItems, f.maxItems, 'max-items'],
    ] as const) {
      if (low && high && low.value > high.value)
        diag.error(
          'SPEC_VALUE_TYPE',
          high.at,
          here,
          `${name}=${high.value} is below ${name.replace('max', 'min')}=${low.value}`,
        );
    }
    if (f.default && f.required)
      diag.error(
        'SPEC_DEFAULT',
        f.default.at,
        here,
        'a required field never uses its default; drop one of the two',
      );
    for (const c of f.fields ?? []) walk(c, here, 'field');
  };
  for (const [label, fields] of blocksOf(g)) for (const f of fields) walk(f, subject, label);
}

/** Pattern, enum and default checks for a field and everything nested in it. */
export function checkFieldValues(
  f: FieldSpec,
  diag: Diagnostics,
  subject: Subject,
  label = 'field',
): void {
  const here = [...subject, `${label} ${f.name}`];
  if (f.pattern) reportPattern(f.pattern, diag, here);
  for (const e of f.enum ?? []) {
    const misfit = scalarMisfit(f, e.value, { ignoreEnum: true });
    if (misfit) diag.error('SPEC_ENUM', e.at, here, `enum value ${misfit} (${f.type})`);
  }
  if (f.default) {
    const misfit = scalarMisfit(f, f.default.value);
    if (misfit) diag.error('SPEC_DEFAULT', f.default.at, here, `default ${misfit}`);
  }
  for (const child of f.fields ?? []) checkFieldValues(child, diag, here);
}

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
