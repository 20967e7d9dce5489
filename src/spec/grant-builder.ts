/**
 * Collects one grant's tool arguments while the compiler walks its blocks: the
 * argument placements, their input-schema properties, and the name collisions
 * between blocks (a path param and a query field may not share a name).
 */
import type { Diagnostics, Position, Subject } from './diagnostics.js';
import type { ArgumentDescriptor, RestrictDescriptor } from './descriptor.js';
import { fieldSchema, type JsonSchema } from './field-schema.js';
import { checkPattern } from './pattern-safety.js';
import { scalarMisfit } from './field-schema.js';
import type { ExclusiveSpec, FieldSpec } from './spec-types.js';

export class GrantBuilder {
  readonly arguments: ArgumentDescriptor[] = [];
  readonly properties: Record<string, JsonSchema> = {};
  readonly required: string[] = [];
  readonly exclusive: string[][] = [];
  /** The field behind each top-level argument, for restrict checks. */
  readonly fieldOf = new Map<string, FieldSpec>();
  private readonly placed = new Map<string, { at: Position; what: string }>();

  constructor(
    readonly diag: Diagnostics,
    readonly subject: Subject,
  ) {}

  /** Whether `name` is free; reports the collision when it is not. */
  claim(
    name: string,
    at: Position,
    what: string,
    code: 'SPEC_ARGUMENT_COLLISION' | 'SPEC_ARG_PROJECTION' = 'SPEC_ARGUMENT_COLLISION',
  ): boolean {
    const first = this.placed.get(name);
    if (first) {
      this.diag.error(
        code,
        at,
        this.subject,
        `${what} ${name} collides with ${first.what} ${name} (line ${first.at.line}); every argument of a tool needs its own name`,
      );
      return false;
    }
    this.placed.set(name, { at, what });
    return true;
  }

  /**
   * Adds a top-level argument. `schema` undefined means the caller never supplies it
   * (from-claim) or it has nothing left to supply (an object of projections only).
   */
  add(
    arg: ArgumentDescriptor,
    field: FieldSpec,
    schema: JsonSchema | undefined,
    what: string,
  ): void {
    if (!this.claim(arg.name, field.at, what)) return;
    this.arguments.push(arg);
    this.fieldOf.set(arg.name, field);
    if (schema && arg.fromClaim === undefined) {
      this.properties[arg.name] = schema;
      if (arg.required) this.required.push(arg.name);
    }
  }

  /** The input schema of a top-level field; from-claim fields are not input. */
  schemaOf(field: FieldSpec): JsonSchema | undefined {
    return field.fromClaim ? undefined : fieldSchema(field, (f) => f.arg !== undefined);
  }

  inputSchema(): JsonSchema {
    return {
      type: 'object',
      properties: this.properties,
      ...(this.required.length > 0 && { required: this.required }),
      additionalProperties: false,
    };
  }

  /** Restrict entries that name one of this grant's arguments, checked against it. */
  restrictions(entries: readonly RestrictEntry[], used: Set<string>): RestrictDescriptor[] {
    const out: RestrictDescriptor[] = [];
    for (const r of entries) {
      const field = this.fieldOf.get(r.argument);
      if (!field) continue;
      used.add(r.argument);
      const subject = [...this.subject, `restrict ${r.argument}`];
      if (field.type === 'object' || field.type === 'object[]' || field.type === 'raw') {
        this.diag.error(
          'SPEC_RESTRICT',
          r.at,
          subject,
          `argument ${r.argument} is of type ${field.type}; restrict applies to scalars and scalar arrays`,
        );
        continue;
      }
      for (const v of r.values ?? []) {
        const misfit = scalarMisfit(field, v.value, { ignoreEnum: true });
        if (misfit)
          this.diag.error(
            'SPEC_RESTRICT',
            v.at,
            subject,
            `allowed value ${misfit} for argument ${r.argument} (${field.type})`,
          );
      }
      if (r.pattern && !field.type.startsWith('string')) {
        this.diag.error(
          'SPEC_RESTRICT',
          r.pattern.at,
          subject,
          `pattern= applies to string arguments; ${r.argument} is of type ${field.type}`,
        );
      }
      // A default is filled in after the allowlist runs, so it must pass the allowlist here.
      if (field.default) {
        const value = field.default.value;
        const listed = !r.values || r.values.some((v) => v.value === value);
        const matches =
          !r.pattern || (typeof value === 'string' && safeMatch(r.pattern.source, value));
        if (!listed || !matches) {
          this.diag.error(
            'SPEC_RESTRICT',
            field.default.at,
            [...this.subject, `argument ${r.argument}`],
            `default ${JSON.stringify(value)} is not allowed by restrict ${r.argument}`,
          );
        }
      }
      out.push({
        argument: r.argument,
        ...(r.values && { values: r.values.map((v) => v.value) }),
        ...(r.pattern && { pattern: r.pattern.source }),
      });
    }
    return out;
  }
}

export interface RestrictEntry {
  readonly argument: string;
  readonly at: Position;
  readonly values?: readonly {
    readonly value: string | number | boolean | null;
    readonly at: Position;
  }[];
  readonly pattern?: { readonly source: string; readonly at: Position };
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

export function reportPattern(
  p: { source: string; at: Position },
  diag: Diagnostics,
  subject: Subject,
): void {
  const check = checkPattern(p.source);
  if (check.ok) return;
  if (check.unsafe)
    diag.error(
      'SPEC_PATTERN_UNSAFE',
      p.at,
      subject,
      `pattern ${JSON.stringify(p.source)}: ${check.reason}`,
    );
  else
    diag.error(
      'SPEC_PATTERN',
      p.at,
      subject,
      `pattern ${JSON.stringify(p.source)} is not a valid regular expression: ${check.reason}`,
    );
}

export function exclusiveGroups(
  groups: readonly ExclusiveSpec[],
  fields: readonly FieldSpec[],
  diag: Diagnostics,
  subject: Subject,
  b: GrantBuilder,
): void {
  for (const x of groups) {
    const names: string[] = [];
    for (const n of x.names) {
      const f = fields.find((f) => f.name === n.value);
      if (!f)
        diag.error(
          'SPEC_EXCLUSIVE',
          n.at,
          subject,
          `exclusive names ${n.value}, which is not a field of this block`,
        );
      else if (f.required)
        diag.error(
          'SPEC_EXCLUSIVE',
          n.at,
          subject,
          `exclusive names ${n.value}, which is required: a required field cannot be left out`,
        );
      else if (f.default)
        diag.error(
          'SPEC_EXCLUSIVE',
          n.at,
          subject,
          `exclusive names ${n.value}, which has a default and so is always given`,
        );
      else names.push(n.value);
    }
    if (names.length >= 2) b.exclusive.push(names);
  }
}

function safeMatch(source: string, value: string): boolean {
  try {
    return new RegExp(source, 'u').test(value);
  } catch {
    return true; // an invalid pattern is reported on its own
  }
}
