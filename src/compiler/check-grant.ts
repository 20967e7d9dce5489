/** The meaning of one grant: name, verb, kind, arguments, restrict (spec-language.md, "Grants"). */
import { checkBounds, checkExclusive, checkFieldValues } from './check-fields.js';
import { checkHttp } from './check-http.js';
import { Claims, type GrantScope } from './check-scope.js';
import type { Diagnostics, Located, Position, Subject } from './diagnostics.js';
import { scalarMisfit } from './field-schema.js';
import { paramPlacements } from './grant-arguments.js';
import { TOOL_NAME, toolName } from './naming.js';
import type { GrantSpec, RestrictSpec } from './spec-types.js';
import { parseShapePath, shapeTree, type ShapeStep } from './shape-path.js';
import { scanSql } from './sql-text.js';
import { HTTP_METHODS, isHttpMethod, KNOWN_VERBS, methodOfVerb } from './verbs.js';

/** Reports what is wrong with `g`; true when it still makes a tool (for cross-grant checks). */
export function checkGrant(g: GrantSpec, scope: GrantScope): boolean {
  const { diag, spec } = scope;
  const name = toolName(g.verb.value, g.resource);
  const subject = [`grant ${name}`];
  checkBounds(g, diag, subject);
  let ok = TOOL_NAME.test(name);
  if (!ok)
    diag.error(
      'SPEC_TOOL_NAME',
      g.at,
      subject,
      `tool name ${JSON.stringify(name)} must match ${TOOL_NAME.source}`,
    );
  if (g.method && !isHttpMethod(g.method.value)) {
    ok = false;
    diag.error(
      'SPEC_VALUE_TYPE',
      g.method.at,
      subject,
      `method ${JSON.stringify(g.method.value)} is not one of ${HTTP_METHODS.join(', ')}`,
    );
  } else if (!g.method && !methodOfVerb(g.verb.value)) {
    ok = false;
    diag.error(
      'SPEC_UNKNOWN_VERB',
      g.verb.at,
      subject,
      `unknown verb ${JSON.stringify(g.verb.value)}; use one of ${KNOWN_VERBS.join(', ')}, or add \`method "POST"\` (or GET, PUT, PATCH, DELETE)`,
    );
  }
  const isSql = g.sql !== undefined;
  if (isSql === (g.path !== undefined)) {
    diag.error(
      'SPEC_GRANT_KIND',
      isSql ? g.sql!.at : g.at,
      subject,
      isSql
        ? 'a grant has either a path (HTTP) or a sql statement (Postgres), not both'
        : 'a grant needs `path` (an HTTP operation) or `sql` (a Postgres statement)',
    );
    return false;
  }
  const misplaced: [string, Located<unknown> | { at: Position } | undefined][] = isSql
    ? [
        ['query', g.query],
        ['body', g.body],
        ['set', g.set],
      ]
    : [
        ['params', g.params],
        ['max-rows', g.maxRows],
      ];
  for (const [node, given] of misplaced) {
    if (given)
      diag.error(
        'SPEC_GRANT_KIND',
        given.at,
        subject,
        `\`${node}\` belongs to ${isSql ? 'HTTP' : 'sql'} grants; this grant is ${isSql ? 'sql' : 'HTTP'}`,
      );
  }

  const claims = new Claims(diag, subject);
  if (isSql) {
    if (!spec.database) {
      ok = false;
      diag.error(
        'SPEC_NO_DATABASE',
        g.sql!.at,
        subject,
        'a sql grant needs a top-level `database env="DATABASE_URL"` (or `database embedded`)',
      );
    }
    checkSql(g, diag, subject, claims);
  } else {
    if (!scope.hasBaseUrl) {
      ok = false;
      diag.error(
        'SPEC_NO_BASE_URL',
        g.path!.at,
        subject,
        'an HTTP grant needs a top-level `base-url "https://..."`',
      );
    }
    if (!checkHttp(g, scope, subject, claims)) ok = false;
  }
  checkShape(g, diag, subject);
  for (const r of spec.restrict) checkRestrict(r, claims, scope, subject);
  for (const f of claims.fieldOf.values()) {
    if (f.fromClaim && !spec.access?.oauth)
      diag.error(
        'SPEC_MISSING',
        f.fromClaim.at,
        [...subject, `argument ${f.name}`],
        'from-claim takes the value from a verified token: add `access { oauth ... }`',
      );
  }
  return ok;
}

/** `pick` or `omit`, not both; every path parses, and names each field one way. */
function checkShape(g: GrantSpec, diag: Diagnostics, subject: Subject): void {
  if (g.pick && g.omit) {
    // The later of the two is blamed, and the message points back at the other.
    const pickFirst =
      g.pick.at.line < g.omit.at.line ||
      (g.pick.at.line === g.omit.at.line && g.pick.at.column < g.omit.at.column);
    const [first, later] = pickFirst ? ['pick', g.omit] : ['omit', g.pick];
    const at = (pickFirst ? g.pick : g.omit).at;
    diag.error(
      'SPEC_SHAPE',
      later.at,
      subject,
      `a grant takes pick or omit, not both (${first} is at ${at.line}:${at.column})`,
    );
    return;
  }
  const shape = g.pick ?? g.omit;
  if (!shape) return;
  const node = g.pick ? 'pick' : 'omit';
  const parsed: ShapeStep[][] = [];
  for (const path of shape.value) {
    const p = parseShapePath(path.value);
    if (p.ok) parsed.push([...p.steps]);
    else
      diag.error(
        'SPEC_SHAPE',
        path.at,
        subject,
        `${node} ${JSON.stringify(path.value)}: ${p.reason}`,
      );
  }
  if (parsed.length < shape.value.length) return;
  const tree = shapeTree(parsed);
  if (!tree.ok) {
    const path = shape.value[tree.index]!;
    diag.error(
      'SPEC_SHAPE',
      path.at,
      subject,
      `${node} ${JSON.stringify(path.value)}: ${tree.reason}`,
    );
  }
}

function checkSql(g: GrantSpec, diag: Diagnostics, subject: Subject, claims: Claims): void {
  const params = g.params?.fields ?? [];
  const placed = paramPlacements(g);
  params.forEach((f, i) => {
    const here = [...subject, `param ${f.name}`];
    checkFieldValues(f, diag, subject, 'param');
    if (f.as)
      diag.error(
        'SPEC_PROPERTY_TYPE',
        f.as.at,
        here,
        'as= applies to query and body fields; a param is bound by position',
      );
    if (f.arg)
      diag.error('SPEC_ARG_PROJECTION', f.arg.at, here, 'arg= applies to nested body fields only');
    claims.claim(placed[i]!);
  });
  checkExclusive(g.params, diag, subject);
  const sql = g.sql!;
  const scan = scanSql(sql.value);
  if (scan.multiple)
    diag.error(
      'SPEC_SQL_MULTIPLE',
      sql.at,
      subject,
      'sql holds more than one statement; a grant runs exactly one',
    );
  const beyond = scan.placeholders.filter((n) => n < 1 || n > params.length);
  if (beyond.length > 0)
    diag.error(
      'SPEC_SQL_PLACEHOLDERS',
      sql.at,
      subject,
      `sql uses ${beyond.map((n) => `$${n}`).join(', ')} but params declares ${params.length} (the i-th param is $i)`,
    );
  params.forEach((p, i) => {
    if (!scan.placeholders.includes(i + 1))
      diag.error(
        'SPEC_SQL_PLACEHOLDERS',
        p.at,
        subject,
        `param ${p.name} is $${i + 1}, which the statement never uses`,
      );
  });
}

/** A restrict entry that names one of this grant's arguments must fit it. */
function checkRestrict(
  { value: r, at }: Located<RestrictSpec>,
  claims: Claims,
  scope: GrantScope,
  grant: Subject,
): void {
  const { diag } = scope;
  const field = claims.fieldOf.get(r.argument);
  if (!field) return;
  scope.restrictUsed.add(r.argument);
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
