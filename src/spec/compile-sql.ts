/** The sql half of a grant: params → bound `$i` arguments, statement checks → SqlBackend. */
import type { Diagnostics, Subject } from './diagnostics.js';
import type { SqlBackend } from './descriptor.js';
import { checkFieldValues, exclusiveGroups, type GrantBuilder } from './grant-builder.js';
import { scanSql } from './sql-text.js';
import type { GrantSpec } from './spec-types.js';

/** Rows beyond this are dropped and reported in coverage (spec-language.md, max-rows). */
export const DEFAULT_MAX_ROWS = 1000;

export function compileSql(
  g: GrantSpec,
  diag: Diagnostics,
  subject: Subject,
  readOnly: boolean,
  b: GrantBuilder,
  statementTimeoutMs: number,
): SqlBackend | undefined {
  if (!g.sql) return undefined;
  const params = g.params?.fields ?? [];
  params.forEach((f, i) => {
    const here = [...subject, `param ${f.name}`];
    checkFieldValues(f, diag, subject, 'param');
    if (f.as !== undefined)
      diag.error(
        'SPEC_PROPERTY_TYPE',
        f.asAt ?? f.at,
        here,
        'as= applies to query and body fields; a param is bound by position',
      );
    if (f.arg)
      diag.error('SPEC_ARG_PROJECTION', f.arg.at, here, 'arg= applies to nested body fields only');
    b.add(
      {
        name: f.name,
        in: 'param',
        type: f.type,
        required: f.required,
        upstream: `$${i + 1}`,
        position: i + 1,
        ...(f.fromClaim && { fromClaim: f.fromClaim.claim }),
      },
      f,
      b.schemaOf(f),
      'param',
    );
  });
  exclusiveGroups(g.params?.exclusive ?? [], params, diag, subject, b);

  const scan = scanSql(g.sql.statement);
  if (scan.multiple) {
    diag.error(
      'SPEC_SQL_MULTIPLE',
      g.sql.at,
      subject,
      'sql holds more than one statement; a grant runs exactly one',
    );
  }
  const count = params.length;
  const beyond = scan.placeholders.filter((n) => n < 1 || n > count);
  if (beyond.length > 0) {
    diag.error(
      'SPEC_SQL_PLACEHOLDERS',
      g.sql.at,
      subject,
      `sql uses ${beyond.map((n) => `$${n}`).join(', ')} but params declares ${count} (the i-th param is $i)`,
    );
  }
  const unused = params
    .map((p, i) => ({ p, n: i + 1 }))
    .filter(({ n }) => !scan.placeholders.includes(n));
  for (const { p, n } of unused) {
    diag.error(
      'SPEC_SQL_PLACEHOLDERS',
      p.at,
      subject,
      `param ${p.name} is $${n}, which the statement never uses`,
    );
  }
  return {
    kind: 'sql',
    statement: g.sql.statement,
    readOnly,
    maxRows: g.maxRows ?? DEFAULT_MAX_ROWS,
    timeoutMs: g.timeoutMs ?? statementTimeoutMs,
  };
}
