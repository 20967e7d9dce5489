/** The HTTP half of a grant: path, query, body and set → argument placement and HttpBackend. */
import type { Diagnostics, Subject } from './diagnostics.js';
import type { HttpBackend, JsonScalar, UpstreamAuth } from './descriptor.js';
import { PATH_PARAM_MAX_LENGTH } from './field-schema.js';
import { checkFieldValues, exclusiveGroups, type GrantBuilder } from './grant-builder.js';
import { callerBodyPaths, compileBody, isPrefix } from './compile-body.js';
import { headerProblem } from './headers.js';
import {
  isScalarOrScalarArray,
  isScalarType,
  RESERVED_NAME,
  reservedMessage,
} from './parse-field.js';
import { parseTemplate } from './path-template.js';
import type { FieldSpec, GrantSpec } from './spec-types.js';
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
    if (name === RESERVED_NAME) {
      diag.error('SPEC_RESERVED_NAME', g.path.at, subject, reservedMessage('path param', name));
      continue;
    }
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
  let body = compileBody(g, ctx, b);

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
