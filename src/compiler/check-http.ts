/** The meaning of an HTTP grant: template, path params, query, body and set (spec-language.md). */
import { checkExclusive, checkFieldValues } from './check-fields.js';
import type { Claims, GrantScope } from './check-scope.js';
import type { Subject } from './diagnostics.js';
import {
  bodyPlacements,
  bodyTree,
  pathPlacements,
  queryPlacements,
  upstreamOf,
  type Placement,
} from './grant-arguments.js';
import { headerProblem } from './headers.js';
import {
  FIELD_NAME,
  isScalarOrScalarArray,
  isScalarType,
  RESERVED_NAME,
  reservedMessage,
} from './parse-field.js';
import { parseTemplate } from './path-template.js';
import type { FieldSpec, GrantSpec } from './spec-types.js';

/** False when the path template cannot be read: nothing else of the grant is checked then. */
export function checkHttp(
  g: GrantSpec,
  scope: GrantScope,
  subject: Subject,
  claims: Claims,
): boolean {
  const { diag } = scope;
  const path = g.path!;
  const template = parseTemplate(path.value);
  if (!template.ok) {
    diag.error(
      'SPEC_PATH_TEMPLATE',
      path.at,
      subject,
      `path ${JSON.stringify(path.value)} ${template.reason}`,
    );
    return false;
  }
  for (const p of path.params) {
    if (!template.params.includes(p.name))
      diag.error(
        'SPEC_PATH_PARAM',
        p.at,
        subject,
        `path param ${p.name} is declared but the template ${JSON.stringify(path.value)} has no {${p.name}}`,
      );
  }
  const params = template.params.filter((name) => {
    if (name !== RESERVED_NAME) return true;
    diag.error('SPEC_RESERVED_NAME', path.at, subject, reservedMessage('path param', name));
    return false;
  });
  for (const placed of pathPlacements(g, params)) {
    const given = path.params.find((p) => p.name === placed.argument.name);
    if (given) checkPathParam(given, scope, subject);
    claims.claim(placed);
  }

  // Query: scalars and scalar arrays, each under its own upstream key.
  const queryKeys = new Map<string, string>();
  const auth = scope.spec.auth?.value;
  if (auth?.kind === 'query') queryKeys.set(auth.param, 'the auth query parameter');
  for (const placed of queryPlacements(g)) {
    const f = placed.field;
    const here = [...subject, `query field ${f.name}`];
    checkFieldValues(f, diag, subject, 'query field');
    if (!isScalarOrScalarArray(f.type)) {
      diag.error(
        'SPEC_UNKNOWN_TYPE',
        f.typeAt ?? f.at,
        here,
        `type ${f.type} is not allowed in query: query fields take scalars and scalar arrays`,
      );
      continue;
    }
    if (f.arg)
      diag.error('SPEC_ARG_PROJECTION', f.arg.at, here, 'arg= applies to nested body fields only');
    const upstream = upstreamOf(f);
    const taken = queryKeys.get(upstream);
    if (taken)
      diag.error(
        'SPEC_DUPLICATE',
        f.at,
        here,
        `upstream query key ${JSON.stringify(upstream)} is also ${taken}`,
      );
    queryKeys.set(upstream, `query field ${f.name}`);
    claims.claim(placed);
  }
  checkExclusive(g.query, diag, subject);

  const bodyKeys = new Set<string>();
  for (const f of g.body?.fields ?? []) {
    const here = [...subject, `body field ${f.name}`];
    checkFieldValues(f, diag, subject, 'body field');
    const upstream = upstreamOf(f);
    if (bodyKeys.has(upstream))
      diag.error(
        'SPEC_DUPLICATE',
        f.at,
        here,
        `upstream body key ${JSON.stringify(upstream)} is used twice`,
      );
    bodyKeys.add(upstream);
    if (f.arg)
      diag.error(
        'SPEC_ARG_PROJECTION',
        f.arg.at,
        here,
        'arg= applies to nested fields; a top-level field is already an argument',
      );
    checkNested(f, scope, here);
  }
  // Where a caller's value lands in the body: fixed `set body` values may not overlap it.
  const fieldPaths: (readonly string[])[] = [];
  const projectedPaths: (readonly string[])[] = [];
  for (const placed of bodyPlacements(g)) {
    if (placed.nested) {
      if (!projectionRefused(placed, scope, subject) && claims.claim(placed))
        projectedPaths.push(placed.argument.bodyPath!);
    } else {
      if (bodyTree(placed.field)) fieldPaths.push([placed.argument.upstream]);
      claims.claim(placed);
    }
  }
  checkExclusive(g.body, diag, subject);

  checkSet(g, scope, subject, queryKeys, [...fieldPaths, ...projectedPaths]);
  return true;
}

/** Array path params: items comma-joined in one segment, each percent-encoded. */
const PATH_ARRAYS: ReadonlySet<string> = new Set(['string[]', 'integer[]']);

function checkPathParam(given: FieldSpec, { diag }: GrantScope, subject: Subject): void {
  const here = [...subject, `path param ${given.name}`];
  if (!isScalarType(given.type) && !PATH_ARRAYS.has(given.type))
    diag.error(
      'SPEC_PATH_PARAM',
      given.typeAt ?? given.at,
      here,
      `a path param fills one segment: it must be string, integer, number, boolean, string[] or integer[] (items joined with commas), not ${given.type}`,
    );
  if (PATH_ARRAYS.has(given.type) && given.minItems && given.minItems.value < 1)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.minItems.at,
      here,
      'an array path param has at least one item: an empty array would empty its segment',
    );
  if (given.default)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.default.at,
      here,
      'a path param is always required; it takes no default',
    );
  // from-claim on a path param is allowed: it binds e.g. {tenant} to the token.
  if (given.as)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.as.at,
      here,
      'as= does not apply to path params: the template names the segment',
    );
  if (given.arg)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.arg.at,
      here,
      'arg= does not apply to path params: a path param is already an argument',
    );
  checkFieldValues(given, diag, subject, 'path param');
}

/** Nested body fields: one upstream key each, claims only at the top. */
function checkNested(f: FieldSpec, scope: GrantScope, here: Subject): void {
  const seen = new Set<string>();
  for (const c of f.fields ?? []) {
    const upstream = upstreamOf(c);
    const sub = [...here, `field ${c.name}`];
    if (seen.has(upstream))
      scope.diag.error(
        'SPEC_DUPLICATE',
        c.at,
        sub,
        `upstream key ${JSON.stringify(upstream)} is used twice`,
      );
    seen.add(upstream);
    if (c.fromClaim)
      scope.diag.error(
        'SPEC_PROPERTY_TYPE',
        c.fromClaim.at,
        sub,
        'from-claim applies to top-level fields only',
      );
    if (!c.arg) checkNested(c, scope, sub);
  }
}

/** Why an `arg=` projection cannot be one; reported, and then it claims no name. */
function projectionRefused(placed: Placement, { diag }: GrantScope, subject: Subject): boolean {
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
  if (problem) diag.error('SPEC_ARG_PROJECTION', arg.at, nestedSubject(placed, subject), problem);
  return problem !== undefined;
}

/** "grant x: body field a: field b": the subject of a nested field, from its body path. */
function nestedSubject(placed: Placement, subject: Subject): Subject {
  return [
    ...subject,
    ...placed.nested!.names.map((n, i) => (i === 0 ? `body field ${n}` : `field ${n}`)),
  ];
}

function checkSet(
  g: GrantSpec,
  { diag, authHeader }: GrantScope,
  subject: Subject,
  queryKeys: Map<string, string>,
  callerPaths: readonly (readonly string[])[],
): void {
  for (const s of g.set?.value ?? []) {
    const here = [...subject, `set ${s.target} ${s.key}`];
    if (s.target === 'query') {
      const taken = queryKeys.get(s.key);
      if (taken)
        diag.error(
          'SPEC_ARGUMENT_COLLISION',
          s.at,
          here,
          `query key ${JSON.stringify(s.key)} is also ${taken}`,
        );
      queryKeys.set(s.key, 'a set query value');
    } else if (s.target === 'header') {
      const problem = headerProblem(s.key, String(s.value), authHeader);
      if (problem) diag.error('SPEC_HEADER', s.at, here, problem);
    } else {
      const path = s.key.split('.');
      if (path.some((p) => p === '' || p === '__proto__')) {
        diag.error(
          'SPEC_VALUE_TYPE',
          s.at,
          here,
          `body path ${JSON.stringify(s.key)} must be dot-separated names`,
        );
        continue;
      }
      const clash = callerPaths.find((p) => isPrefix(p, path) || isPrefix(path, p));
      if (clash)
        diag.error(
          'SPEC_ARGUMENT_COLLISION',
          s.at,
          here,
          `body path ${JSON.stringify(s.key)} overlaps the caller's field at ${JSON.stringify(clash.join('.'))}; a fixed value and a caller's value cannot share a place`,
        );
    }
  }
}

function isPrefix(short: readonly string[], long: readonly string[]): boolean {
  return short.length <= long.length && short.every((s, i) => long[i] === s);
}
