/**
 * Fields sent as one JSON object: an HTTP grant's `body` and an MCP grant's `args` (the
 * upstream tool's `arguments`) are built alike (spec-language.md, "Body" and "Upstream MCP
 * servers"). Where each argument goes (a top-level key under its `as=` name, or an `arg=`
 * projection into a nested field), the checks of that, the upstream trees the engine's
 * body builder reshapes values by, and the check of a pinned path against them.
 */
import type { Claims } from '../argument-claims.js';
import type { Diagnostics, Position, Subject } from '../diagnostics.js';
import type { ArgumentDescriptor, BodyFieldDescriptor } from '../descriptor.js';
import type { FieldSpec } from '../field-types.js';
import { FIELD_NAME } from '../naming.js';
import { plain, schemaOf, upstreamOf, type Placement } from '../placement.js';
import { checkFieldValues } from './field.js';

/** How one kind of object names its top-level fields and their upstream keys in messages. */
export interface ObjectWords {
  /** "body field", "argument". */
  readonly label: 'body field' | 'argument';
  /** "upstream body key", "upstream argument name". */
  readonly key: string;
  /** "body path", "argument path": a pinned value's dotted path. */
  readonly path: string;
}

export const BODY_WORDS: ObjectWords = {
  label: 'body field',
  key: 'upstream body key',
  path: 'body path',
};

/** What the check of an object's fields found. */
export interface CheckedObject {
  readonly placements: readonly Placement[];
  /** The upstream shape of each top-level field that carries input. */
  readonly trees: readonly BodyFieldDescriptor[];
  /** Where a caller's value lands: no pinned value may share a place with one. */
  readonly callerPaths: readonly (readonly string[])[];
}

/** The fields' own checks, their upstream keys, their projections and their claims. */
export function checkObjectFields(
  fields: readonly FieldSpec[],
  words: ObjectWords,
  diag: Diagnostics,
  subject: Subject,
  claims: Claims,
): CheckedObject {
  const keys = new Set<string>();
  for (const f of fields) {
    const here = [...subject, `${words.label} ${f.name}`];
    checkFieldValues(f, diag, subject, words.label);
    const upstream = upstreamOf(f);
    if (keys.has(upstream))
      diag.error(
        'SPEC_DUPLICATE',
        f.at,
        here,
        `${words.key} ${JSON.stringify(upstream)} is used twice`,
      );
    keys.add(upstream);
    if (f.arg)
      diag.error(
        'SPEC_ARG_PROJECTION',
        f.arg.at,
        here,
        'arg= applies to nested fields; a top-level field is already an argument',
      );
    checkNested(f, diag, here);
  }
  const fieldPaths: (readonly string[])[] = [];
  const projectedPaths: (readonly string[])[] = [];
  const placements = objectPlacements(fields, words.label);
  const trees: BodyFieldDescriptor[] = [];
  for (const placed of placements) {
    if (placed.nested) {
      if (!projectionRefused(placed, diag, subject, words.label) && claims.claim(placed))
        projectedPaths.push(placed.argument.bodyPath!);
    } else {
      const tree = upstreamTree(placed.field);
      if (tree) {
        trees.push(tree);
        fieldPaths.push([placed.argument.upstream]);
      }
      claims.claim(placed);
    }
  }
  return { placements, trees, callerPaths: [...fieldPaths, ...projectedPaths] };
}

/**
 * A pinned value's dotted path: names between the dots, and no place a caller's value
 * takes (equal, or one inside the other).
 */
export function checkPinnedPath(
  key: string,
  at: Position,
  here: Subject,
  callerPaths: readonly (readonly string[])[],
  words: ObjectWords,
  diag: Diagnostics,
): void {
  const path = key.split('.');
  if (path.some((p) => p === '' || p === '__proto__')) {
    diag.error(
      'SPEC_VALUE_TYPE',
      at,
      here,
      `${words.path} ${JSON.stringify(key)} must be dot-separated names`,
    );
    return;
  }
  const clash = callerPaths.find((p) => isPrefix(p, path) || isPrefix(path, p));
  if (clash)
    diag.error(
      'SPEC_ARGUMENT_COLLISION',
      at,
      here,
      `${words.path} ${JSON.stringify(key)} overlaps the caller's field at ${JSON.stringify(clash.join('.'))}; a fixed value and a caller's value cannot share a place`,
    );
}

function isPrefix(short: readonly string[], long: readonly string[]): boolean {
  return short.length <= long.length && short.every((s, i) => long[i] === s);
}

/** Nested fields: one upstream key each, claims only at the top. */
function checkNested(f: FieldSpec, diag: Diagnostics, here: Subject): void {
  const seen = new Set<string>();
  for (const c of f.fields ?? []) {
    const upstream = upstreamOf(c);
    const sub = [...here, `field ${c.name}`];
    if (seen.has(upstream))
      diag.error(
        'SPEC_DUPLICATE',
        c.at,
        sub,
        `upstream key ${JSON.stringify(upstream)} is used twice`,
      );
    seen.add(upstream);
    if (c.fromClaim)
      diag.error(
        'SPEC_PROPERTY_TYPE',
        c.fromClaim.at,
        sub,
        'from-claim applies to top-level fields only',
      );
    if (!c.arg) checkNested(c, diag, sub);
  }
}

/** Why an `arg=` projection cannot be one; reported, and then it claims no name. */
function projectionRefused(
  placed: Placement,
  diag: Diagnostics,
  subject: Subject,
  label: ObjectWords['label'],
): boolean {
  if (!placed.nested) return false;
  const { field: c, inArray } = placed.nested;
  const arg = c.arg!;
  const problem = inArray
    ? 'arg= cannot fill a field inside an object[] (there is no single element to put it in)'
    : c.type !== 'string'
      ? `arg= applies to string fields, not ${c.type}`
      : !c.required
        ? 'arg= applies to required fields (add required=#true)'
        : !FIELD_NAME.test(arg.value)
          ? `arg=${JSON.stringify(arg.value)} must match ${FIELD_NAME.source}`
          : undefined;
  if (problem)
    diag.error('SPEC_ARG_PROJECTION', arg.at, nestedSubject(placed, subject, label), problem);
  return problem !== undefined;
}

/** "grant x: body field a: field b": the subject of a nested field, from its path. */
function nestedSubject(placed: Placement, subject: Subject, label: ObjectWords['label']): Subject {
  return [
    ...subject,
    ...placed.nested!.names.map((n, i) => (i === 0 ? `${label} ${n}` : `field ${n}`)),
  ];
}

/**
 * Top-level fields, each after its nested projections; an object left with no input is not one.
 * A projection is required only when every object above it is (spec-language.md, `arg=`):
 * under an optional `commit`, `commit_message` may be left out, and then no `commit` is
 * sent. `parent` names the top-level field when the chain below it is all required, so
 * the input schema can say "given the parent, give this too" (dependentRequired).
 */
export function objectPlacements(
  fields: readonly FieldSpec[],
  label: ObjectWords['label'],
): Placement[] {
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
  for (const f of fields) {
    projections(f, [upstreamOf(f)], [f.name], false, { required: f.required, belowTop: true });
    const placed = plain(f, label, 'body', upstreamOf(f));
    if (placed.schema || f.fromClaim) out.push(placed);
  }
  return out;
}

/**
 * The upstream shape of a field: nested objects keep their aliases, `arg=` fields are
 * left out (a projection fills them); undefined for an object left with nothing.
 */
function upstreamTree(f: FieldSpec): BodyFieldDescriptor | undefined {
  const fields = (f.fields ?? []).flatMap((c) => {
    const tree = c.arg ? undefined : upstreamTree(c);
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
