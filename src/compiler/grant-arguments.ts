/**
 * Where each of a grant's tool arguments goes, in the order they claim their names:
 * path params (template order), query fields, body fields (each after the `arg=`
 * projections nested in it), sql params. Pure: the checker refuses what does not fit,
 * lowering turns the rest into argument descriptors and the input schema.
 */
import type { Position } from './diagnostics.js';
import type { ArgumentDescriptor, BodyFieldDescriptor } from './descriptor.js';
import { fieldSchema, PATH_PARAM_MAX_LENGTH, type JsonSchema } from './field-schema.js';
import { withoutImpliedLengths } from './implied-lengths.js';
import { restrictedSchema, type RestrictRule } from './restrict-schema.js';
import type { FieldSpec, GrantSpec } from './spec-types.js';

export interface Placement {
  readonly argument: ArgumentDescriptor;
  /** The field behind the argument, as restrict and from-claim see it. */
  readonly field: FieldSpec;
  /** How a collision names it: "query field". */
  readonly what: 'path param' | 'query field' | 'body field' | 'projected argument' | 'param';
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

function plain(
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

/** Path params in template order: a declared child types one, else it is a string. */
export function pathPlacements(g: GrantSpec, params: readonly string[]): Placement[] {
  return params.map((name) => {
    const given = g.path?.params.find((p) => p.name === name);
    const field: FieldSpec = given
      ? { ...given, required: true }
      : { name, type: 'string', at: g.path!.at, required: true };
    const placed = plain(field, 'path param', 'path', name);
    return { ...placed, schema: placed.schema && pathSchema(field, placed.schema) };
  });
}

/**
 * A path string is 1..1024 characters unless the field says otherwise; an array's items
 * are joined with commas in one segment, so each item is such a string and an empty
 * array (an empty segment) is refused: min-items is at least 1.
 */
function pathSchema(field: FieldSpec, schema: JsonSchema): JsonSchema {
  const lengths = {
    minLength: field.minLength?.value ?? 1,
    maxLength: field.maxLength?.value ?? PATH_PARAM_MAX_LENGTH,
  };
  if (field.type === 'string') return { ...schema, ...lengths };
  if (!field.type.endsWith('[]')) return schema;
  const items = schema.items as JsonSchema;
  return {
    ...schema,
    minItems: Math.max(1, field.minItems?.value ?? 1),
    items: field.type === 'string[]' ? { ...items, ...lengths } : items,
  };
}

export function queryPlacements(g: GrantSpec): Placement[] {
  return (g.query?.fields ?? []).map((f) => plain(f, 'query field', 'query', upstreamOf(f)));
}

/**
 * Body fields, each after its nested projections; an object left with no input is not one.
 * A projection is required only when every object above it is (spec-language.md, `arg=`):
 * under an optional `commit`, `commit_message` may be left out, and then no `commit` is
 * sent. `parent` names the top-level field when the chain below it is all required, so
 * the input schema can say "given the parent, give this too" (dependentRequired).
 */
export function bodyPlacements(g: GrantSpec): Placement[] {
  const out: Placement[] = [];
  const projections = (
    f: FieldSpec,
    path: readonly string[],
    names: readonly string[],
    inArray: boolean,
    chain: { readonly required: boolean; readonly belowTop: boolean },
  ): void => {
    const within = inArray || f.type === 'object[]';
    for (const c of f.fields ?? []) {
      const at = [...path, upstreamOf(c)];
      if (!c.arg) {
        projections(c, at, [...names, c.name], within, {
          required: chain.required && c.required,
          belowTop: chain.belowTop && c.required,
        });
        continue;
      }
      const { arg, ...rest } = c;
      const field: FieldSpec = { ...rest, name: arg.value, required: chain.required };
      const argument: ArgumentDescriptor = {
        name: arg.value,
        in: 'projection',
        type: 'string',
        required: chain.required,
        upstream: at.join('.'),
        bodyPath: at,
      };
      out.push({
        argument,
        field,
        what: 'projected argument',
        at: arg.at,
        schema: schemaOf(field),
        nested: { field: c, names: [...names, c.name], inArray: within },
        ...(!chain.required && chain.belowTop && { parent: names[0]! }),
      });
    }
  };
  for (const f of g.body?.fields ?? []) {
    projections(f, [upstreamOf(f)], [f.name], false, { required: f.required, belowTop: true });
    const placed = plain(f, 'body field', 'body', upstreamOf(f));
    if (placed.schema || f.fromClaim) out.push(placed);
  }
  return out;
}

export function paramPlacements(g: GrantSpec): Placement[] {
  return (g.params?.fields ?? []).map((f, i) =>
    plain(f, 'param', 'param', `$${i + 1}`, { position: i + 1 }),
  );
}

/**
 * The upstream shape of a body field: nested objects keep their aliases, `arg=` fields
 * are left out (a projection fills them); undefined for an object left with nothing.
 */
export function bodyTree(f: FieldSpec): BodyFieldDescriptor | undefined {
  const fields = (f.fields ?? []).flatMap((c) => {
    const tree = c.arg ? undefined : bodyTree(c);
    return tree ? [tree] : [];
  });
  if ((f.type === 'object' || f.type === 'object[]') && fields.length === 0) return undefined;
  return {
    name: f.name,
    upstream: upstreamOf(f),
    type: f.type,
    ...(fields.length > 0 && { fields }),
  };
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
