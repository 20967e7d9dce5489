/**
 * Where one of a grant's tool arguments goes: its descriptor, the field behind it, and
 * its input schema. Each backend places its own arguments (kinds/http-grant.ts: path,
 * query, body; kinds/sql-grant.ts: params) once, in the order they claim their names;
 * the check reads the placements and the lowering turns the same ones into argument
 * descriptors and the input schema.
 */
import type { Position } from './diagnostics.js';
import type { ArgumentDescriptor } from './descriptor.js';
import { fieldSchema, type JsonSchema } from './field-schema.js';
import type { FieldSpec } from './field-types.js';
import { withoutImpliedLengths } from './implied-lengths.js';
import { restrictedSchema, type RestrictRule } from './restrict-schema.js';

export interface Placement {
  readonly argument: ArgumentDescriptor;
  /** The field behind the argument, as restrict and from-claim see it. */
  readonly field: FieldSpec;
  /** How a collision names it: "query field". */
  readonly what:
    'path param' | 'query field' | 'body field' | 'projected argument' | 'param' | 'argument';
  /** Where a collision is reported. */
  readonly at: Position;
  /** Its input schema; undefined when the caller never supplies it (from-claim). */
  readonly schema: JsonSchema | undefined;
  /** An `arg=` projection: the nested field as written, the names leading to it, and
   * whether an object[] holds it. */
  readonly nested?: {
    readonly field: FieldSpec;
    readonly names: readonly string[];
    readonly inArray: boolean;
  };
  /** An optional projection: the top-level field that, when given, requires it. */
  readonly parent?: string;
}

/** The input schema of a top-level field; from-claim fields are not input. */
export function schemaOf(field: FieldSpec): JsonSchema | undefined {
  return field.fromClaim ? undefined : fieldSchema(field, (f) => f.arg !== undefined);
}

export function upstreamOf(f: FieldSpec): string {
  return f.as?.value ?? f.name;
}

/** An argument filled from a field of its own name (every one but an `arg=` projection). */
export function plain(
  f: FieldSpec,
  what: Placement['what'],
  where: ArgumentDescriptor['in'],
  upstream: string,
  extra: { position?: number } = {},
): Placement {
  const argument: ArgumentDescriptor = {
    name: f.name,
    in: where,
    type: f.type,
    required: f.required,
    upstream,
    ...extra,
    ...(f.fromClaim && { fromClaim: f.fromClaim.value }),
  };
  return { argument, field: f, what, at: f.at, schema: schemaOf(f) };
}

/**
 * The tool's inputSchema: every placed argument the caller supplies, with the `restrict`
 * rule of its name stated in it (restrict-schema.ts) and without the length bounds its
 * enum or pattern already implies (implied-lengths.ts).
 */
export function inputSchema(
  placements: readonly Placement[],
  restrict: ReadonlyMap<string, RestrictRule> = new Map(),
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const dependent: Record<string, string[]> = {};
  for (const p of placements) {
    if (!p.schema || p.argument.fromClaim !== undefined) continue;
    if (p.parent !== undefined) (dependent[p.parent] ??= []).push(p.argument.name);
    const rule = restrict.get(p.argument.name);
    properties[p.argument.name] = withoutImpliedLengths(
      rule ? restrictedSchema(p.schema, rule) : p.schema,
    );
    if (p.argument.required) required.push(p.argument.name);
  }
  // Only a parent the caller can give (one with input fields of its own) makes one.
  const dependentRequired = Object.fromEntries(
    Object.entries(dependent).filter(([parent]) => Object.hasOwn(properties, parent)),
  );
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    ...(Object.keys(dependentRequired).length > 0 && { dependentRequired }),
    additionalProperties: false,
  };
}
