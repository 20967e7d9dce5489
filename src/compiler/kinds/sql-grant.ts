/**
 * The sql backend of a grant (spec-language.md, "Grants"): one Postgres statement,
 * `params` bound by position ($1, $2, ...) and `max-rows`; the checks of the statement
 * against its params, and the SqlBackend it lowers to.
 */
import type { Claims } from '../argument-claims.js';
import { count, locatedString, once } from '../common-kinds.js';
import type { Located, Subject } from '../diagnostics.js';
import type { SqlBackend } from '../descriptor.js';
import type { FieldSpec } from '../field-types.js';
import { childNamed, type Built } from '../kdl-reader.js';
import { SQL_OUTPUT_SCHEMA } from '../output-schema.js';
import { plain, type Placement } from '../placement.js';
import { scanSql } from '../sql-text.js';
import { blockKind, checkExclusive, checkFieldValues, type FieldBlockSpec } from './field.js';
import type { CheckedBackend, GrantBackend, GrantContext, GrantSpec } from './grant-backend.js';

/** Rows beyond this are dropped and reported in coverage (spec-language.md, max-rows). */
const DEFAULT_MAX_ROWS = 1000;

/** A sql grant's own children, as read. */
interface SqlSpec {
  readonly sql?: Located<string>;
  readonly params?: FieldBlockSpec;
  readonly maxRows?: Located<number>;
}

function sqlSpecOf(parts: readonly Built[]): SqlSpec {
  return {
    sql: childNamed(parts, 'sql'),
    params: childNamed(parts, 'params'),
    maxRows: childNamed(parts, 'max-rows'),
  };
}

export const SQL_GRANT: GrantBackend = {
  name: 'sql',
  marker: 'sql',
  needs: '`sql` (a Postgres statement)',
  either: 'a sql statement (Postgres)',
  children: {
    sql: once(locatedString('an SQL statement')),
    params: once(blockKind('param')),
    'max-rows': once(count('max-rows')),
  },
  outputSchema: SQL_OUTPUT_SCHEMA,
  openWorld: false,
  blocks: (parts) => [['param', sqlSpecOf(parts).params?.fields ?? []]],
  check: checkSql,
  place: (parts) => paramPlacements(sqlSpecOf(parts).params?.fields ?? []),
};

function checkSql(
  g: GrantSpec,
  ctx: GrantContext,
  subject: Subject,
  claims: Claims,
): CheckedBackend {
  const { diag } = ctx;
  const s = sqlSpecOf(g.parts);
  const sql = s.sql!;
  let ok = true;
  if (!ctx.hasDatabase) {
    ok = false;
    diag.error(
      'SPEC_NO_DATABASE',
      sql.at,
      subject,
      'a sql grant needs a top-level `database env="DATABASE_URL"` (or `database embedded`)',
    );
  }
  const params = s.params?.fields ?? [];
  const placements = paramPlacements(params);
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
    claims.claim(placements[i]!);
  });
  checkExclusive(s.params, diag, subject);
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
  return {
    ok,
    placements,
    exclusive: (s.params?.exclusive ?? []).map((x) => x.value.map((n) => n.value)),
    lower: ({ readOnly }): SqlBackend => ({
      kind: 'sql',
      statement: sql.value,
      readOnly,
      maxRows: s.maxRows?.value ?? DEFAULT_MAX_ROWS,
      timeoutMs: g.timeoutMs ?? ctx.statementTimeoutMs,
    }),
  };
}

/** Params in order: the i-th is bound to `$i`. */
function paramPlacements(params: readonly FieldSpec[]): Placement[] {
  return params.map((f, i) => plain(f, 'param', 'param', `$${i + 1}`, { position: i + 1 }));
}
