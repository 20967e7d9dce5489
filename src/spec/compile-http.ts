/** The HTTP half of a grant: path, query, body and set → argument placement and HttpBackend. */
import type { Diagnostics, Subject } from './diagnostics.js';
import type { BodyFieldDescriptor, HttpBackend, JsonScalar, UpstreamAuth } from './descriptor.js';
import { PATH_PARAM_MAX_LENGTH } from './field-schema.js';
import { checkFieldValues, type GrantBuilder } from './grant-builder.js';
import { headerProblem } from './headers.js';
import { FIELD_NAME, isScalarOrScalarArray, isScalarType } from './parse-field.js';
import { parseTemplate } from './path-template.js';
import type { ExclusiveSpec, FieldSpec, GrantSpec } from './spec-types.js';
import type { HttpMethod } from './verbs.js';

export interface HttpContext {
  readonly diag: Diagnostics;
  readonly subject: Subject;
  readonly baseUrl: string;
  readonly method: HttpMethod;
  readonly headers: readonly (readonly [string, string])[];
  readonly auth?: UpstreamAuth;
  readonly authHeader?: string;
  readonly timeoutMs: number;
}

export function compileHttp(
  g: GrantSpec,
  ctx: HttpContext,
  b: GrantBuilder,
): HttpBackend | undefined {
  const { diag, subject } = ctx;
  if (!g.path) return undefined;
  const template = parseTemplate(g.path.template);
  if (!template.ok) {
    diag.error(
      'SPEC_PATH_TEMPLATE',
      g.path.at,
      subject,
      `path ${JSON.stringify(g.path.template)} ${template.reason}`,
    );
    return undefined;
  }

  // Path parameters, in template order: declared children type them.
  const declared = new Map(g.path.params.map((p) => [p.name, p]));
  for (const p of g.path.params) {
    if (!template.params.includes(p.name)) {
      diag.error(
        'SPEC_PATH_PARAM',
        p.at,
        subject,
        `path param ${p.name} is declared but the template ${JSON.stringify(g.path.template)} has no {${p.name}}`,
      );
    }
  }
  for (const name of template.params) {
    const given = declared.get(name);
    if (given) {
      const here = [...subject, `path param ${name}`];
      if (!isScalarType(given.type))
        diag.error(
          'SPEC_PATH_PARAM',
          given.typeAt ?? given.at,
          here,
          `a path param fills one segment: it must be string, integer, number or boolean, not ${given.type}`,
        );
      if (given.default)
        diag.error(
          'SPEC_PROPERTY_TYPE',
          given.default.at,
          here,
          'a path param is always required; it takes no default',
        );
      // from-claim on a path param is allowed: it binds e.g. {tenant} to the token.
      if (given.as !== undefined)
        diag.error(
          'SPEC_PROPERTY_TYPE',
          given.asAt ?? given.at,
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
    const field: FieldSpec = given
      ? { ...given, required: true }
      : { name, type: 'string', at: g.path.at, required: true };
    const schema = b.schemaOf(field);
    const bounded =
      schema && field.type === 'string'
        ? {
            ...schema,
            minLength: field.minLength ?? 1,
            maxLength: field.maxLength ?? PATH_PARAM_MAX_LENGTH,
          }
        : schema;
    b.add(
      {
        name,
        in: 'path',
        type: field.type,
        required: true,
        upstream: name,
        ...(field.fromClaim && { fromClaim: field.fromClaim.claim }),
      },
      field,
      bounded,
      'path param',
    );
  }

  // Query: scalars and scalar arrays, renamed by as=.
  const queryKeys = new Map<string, string>();
  if (ctx.auth?.kind === 'query') queryKeys.set(ctx.auth.param, 'the auth query parameter');
  for (const f of g.query?.fields ?? []) {
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
    const upstream = f.as ?? f.name;
    const taken = queryKeys.get(upstream);
    if (taken)
      diag.error(
        'SPEC_DUPLICATE',
        f.at,
        here,
        `upstream query key ${JSON.stringify(upstream)} is also ${taken}`,
      );
    queryKeys.set(upstream, `query field ${f.name}`);
    b.add(
      {
        name: f.name,
        in: 'query',
        type: f.type,
        required: f.required,
        upstream,
        ...(f.fromClaim && { fromClaim: f.fromClaim.claim }),
      },
      f,
      b.schemaOf(f),
      'query field',
    );
  }
  exclusiveGroups(g.query?.exclusive ?? [], g.query?.fields ?? [], diag, subject, b);

  // Body: nested objects keep their aliases; arg= projections become top-level arguments.
  let body: HttpBackend['body'];
  const bodyKeys = new Set<string>();
  if (g.body) {
    const fields: BodyFieldDescriptor[] = [];
    for (const f of g.body.fields) {
      checkFieldValues(f, diag, subject, 'body field');
      const upstream = f.as ?? f.name;
      const here = [...subject, `body field ${f.name}`];
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
      const tree = bodyTree(f, [upstream], false, ctx, b, here);
      const schema = b.schemaOf(f);
      if (schema || f.fromClaim) {
        if (tree) fields.push(tree);
        b.add(
          {
            name: f.name,
            in: 'body',
            type: f.type,
            required: f.required,
            upstream,
            ...(f.fromClaim && { fromClaim: f.fromClaim.claim }),
          },
          f,
          schema,
          'body field',
        );
      }
    }
    exclusiveGroups(g.body.exclusive, g.body.fields, diag, subject, b);
    body = { encoding: g.body.encoding, fields };
  }

  // set: fixed server-side values, never overridable by the caller.
  const headers = new Map(ctx.headers.map(([k, v]) => [k.toLowerCase(), [k, v] as const]));
  const setQuery: [string, JsonScalar][] = [];
  const setBody: { path: string[]; value: JsonScalar }[] = [];
  for (const s of g.set) {
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
      setQuery.push([s.key, s.value]);
    } else if (s.target === 'header') {
      const problem = headerProblem(s.key, String(s.value), ctx.authHeader);
      if (problem) diag.error('SPEC_HEADER', s.at, here, problem);
      headers.set(s.key.toLowerCase(), [s.key, String(s.value)]);
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
      const clash = callerBodyPaths(body?.fields ?? [], b).find(
        (p) => isPrefix(p, path) || isPrefix(path, p),
      );
      if (clash) {
        diag.error(
          'SPEC_ARGUMENT_COLLISION',
          s.at,
          here,
          `body path ${JSON.stringify(s.key)} overlaps the caller's field at ${JSON.stringify(clash.join('.'))}; a fixed value and a caller's value cannot share a place`,
        );
      }
      setBody.push({ path, value: s.value });
    }
  }
  if (setBody.length > 0 && !body) body = { encoding: 'json', fields: [] };

  return {
    kind: 'http',
    method: ctx.method,
    baseUrl: ctx.baseUrl,
    pathTemplate: g.path.template,
    path: template.parts,
    ...(body && { body }),
    headers: [...headers.values()],
    setQuery,
    setBody,
    ...(ctx.auth && { auth: ctx.auth }),
    timeoutMs: g.timeoutMs ?? ctx.timeoutMs,
  };
}

/**
 * The upstream shape of one body field. Nested `arg=` fields are registered as
 * top-level projection arguments and left out of the tree (the caller's object
 * never holds them); `inArray` forbids them where there is no single place to put one.
 */
function bodyTree(
  f: FieldSpec,
  path: string[],
  inArray: boolean,
  ctx: HttpContext,
  b: GrantBuilder,
  here: Subject,
): BodyFieldDescriptor | undefined {
  const children: BodyFieldDescriptor[] = [];
  const seen = new Set<string>();
  for (const c of f.fields ?? []) {
    const upstream = c.as ?? c.name;
    const sub = [...here, `field ${c.name}`];
    if (seen.has(upstream))
      ctx.diag.error(
        'SPEC_DUPLICATE',
        c.at,
        sub,
        `upstream key ${JSON.stringify(upstream)} is used twice`,
      );
    seen.add(upstream);
    if (c.fromClaim)
      ctx.diag.error(
        'SPEC_PROPERTY_TYPE',
        c.fromClaim.at,
        sub,
        'from-claim applies to top-level fields only',
      );
    if (c.arg) {
      projection(c, [...path, upstream], inArray || f.type === 'object[]', ctx, b, sub);
      continue;
    }
    const tree = bodyTree(c, [...path, upstream], inArray || f.type === 'object[]', ctx, b, sub);
    if (tree) children.push(tree);
  }
  if ((f.type === 'object' || f.type === 'object[]') && children.length === 0) return undefined;
  return {
    name: f.name,
    upstream: path[path.length - 1]!,
    type: f.type,
    ...(children.length > 0 && { fields: children }),
  };
}

function projection(
  c: FieldSpec,
  path: string[],
  inArray: boolean,
  ctx: HttpContext,
  b: GrantBuilder,
  sub: Subject,
): void {
  const arg = c.arg!;
  const { diag } = ctx;
  if (inArray)
    return void diag.error(
      'SPEC_ARG_PROJECTION',
      arg.at,
      sub,
      'arg= cannot fill a field inside an object[] (there is no single element to put it in)',
    );
  if (c.type !== 'string')
    return void diag.error(
      'SPEC_ARG_PROJECTION',
      arg.at,
      sub,
      `arg= applies to string fields, not ${c.type}`,
    );
  if (!c.required)
    return void diag.error(
      'SPEC_ARG_PROJECTION',
      arg.at,
      sub,
      'arg= applies to required fields (add required=#true)',
    );
  if (!FIELD_NAME.test(arg.name))
    return void diag.error(
      'SPEC_ARG_PROJECTION',
      arg.at,
      sub,
      `arg=${JSON.stringify(arg.name)} must match ${FIELD_NAME.source}`,
    );
  if (!b.claim(arg.name, arg.at, 'projected argument', 'SPEC_ARG_PROJECTION')) return;
  const { arg: _omit, ...plain } = c;
  const field: FieldSpec = { ...plain, name: arg.name };
  b.arguments.push({
    name: arg.name,
    in: 'projection',
    type: 'string',
    required: true,
    upstream: path.join('.'),
    bodyPath: path,
  });
  b.fieldOf.set(arg.name, field);
  const schema = b.schemaOf(field);
  if (schema) {
    b.properties[arg.name] = schema;
    b.required.push(arg.name);
  }
}

/** Every body path a caller's value can occupy: top-level fields and arg= projections. */
function callerBodyPaths(
  fields: readonly BodyFieldDescriptor[],
  b: GrantBuilder,
): (readonly string[])[] {
  return [
    ...fields.map((f) => [f.upstream]),
    ...b.arguments.flatMap((a) => (a.bodyPath ? [a.bodyPath] : [])),
  ];
}

function isPrefix(short: readonly string[], long: readonly string[]): boolean {
  return short.length <= long.length && short.every((s, i) => long[i] === s);
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
