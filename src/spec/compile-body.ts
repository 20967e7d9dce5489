/** The body of an HTTP grant: declared fields under their upstream names, arg= projections. */
import type { Subject } from './diagnostics.js';
import type { BodyFieldDescriptor, HttpBackend } from './descriptor.js';
import { checkFieldValues, exclusiveGroups, type GrantBuilder } from './grant-builder.js';
import { FIELD_NAME } from './parse-field.js';
import type { FieldSpec, GrantSpec } from './spec-types.js';
import type { HttpContext } from './compile-http.js';

export function compileBody(
  g: GrantSpec,
  ctx: HttpContext,
  b: GrantBuilder,
): HttpBackend['body'] | undefined {
  const { diag, subject } = ctx;
  if (!g.body) return undefined;
  const bodyKeys = new Set<string>();
  {
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
    return { encoding: g.body.encoding, fields };
  }
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
export function callerBodyPaths(
  fields: readonly BodyFieldDescriptor[],
  b: GrantBuilder,
): (readonly string[])[] {
  return [
    ...fields.map((f) => [f.upstream]),
    ...b.arguments.flatMap((a) => (a.bodyPath ? [a.bodyPath] : [])),
  ];
}

export function isPrefix(short: readonly string[], long: readonly string[]): boolean {
  return short.length <= long.length && short.every((s, i) => long[i] === s);
}
