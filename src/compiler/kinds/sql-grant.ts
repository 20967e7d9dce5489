/**
 * The sql backend of a grant (spec-language.md, "Grants"): one Postgres statement,
 * `params` bound by position ($1, $2, ...) and `max-rows`; the checks of the statement
 * against its params, and the SqlBackend it lowers to.
 */
import { count, locatedString, once } from '../common-kinds.js';
import type { Located } from '../diagnostics.js';
import type { SqlBackend } from '../descriptor.js';
import type { FieldSpec } from '../field-types.js';
import { SQL_OUTPUT_SCHEMA } from '../output-schema.js';
import { plain, type Placement } from '../placement.js';
import { scanSql } from '../sql-text.js';
import { blockKind, checkExclusive, checkFieldValues, type FieldBlockSpec } from './field.js';
import type { BackendCheck, CheckedBackend, GrantBackend, TopSettings } from './grant-backend.js';
import { unknownNameMessage } from './upstream.js';

/** Rows beyond this are dropped and reported in coverage (spec-language.md, max-rows). */
const DEFAULT_MAX_ROWS = 1000;

/** A sql grant's own children, as read. */
interface SqlSpec {
  readonly sql?: Located<string>;
  readonly params?: FieldBlockSpec;
  readonly maxRows?: Located<number>;
  /** `database "<name>"`: a named database instead of the default one. */
  readonly database?: Located<string>;
}

/** The database a sql grant runs on, and its statement-timeout; none without a database. */
interface SqlSettings {
  /** '' for the default database. */
  readonly database: string;
  /** Every named database, for the messages of a grant that names none or an unknown one. */
  readonly declared: readonly string[];
  readonly unknown?: boolean;
  readonly statementTimeoutMs?: number;
}

function sqlSettings({ databases, statementTimeoutMs }: TopSettings, own: SqlSpec): SqlSettings {
  const declared = [...databases.keys()];
  const name = own.database?.value;
  if (name === undefined) return { database: '', declared, statementTimeoutMs };
  const timeout = databases.get(name);
  return timeout === undefined
    ? { database: name, declared, unknown: true }
    : { database: name, declared, statementTimeoutMs: timeout };
}

export const SQL_GRANT: GrantBackend<SqlSpec, SqlSettings> = {
  name: 'sql',
  marker: 'sql',
  needs: '`sql` (a Postgres statement)',
  either: 'a sql statement (Postgres)',
  children: {
    sql: once(locatedString('an SQL statement')),
    params: once(blockKind('param')),
    'max-rows': once(count('max-rows')),
    database: once(locatedString('a database name (database "orders")')),
  },
  outputSchema: SQL_OUTPUT_SCHEMA,
  openWorld: false,
  settings: sqlSettings,
  blocks: (s) => [['param', s.params?.fields ?? []]],
  missing: (s, { database, declared, unknown, statementTimeoutMs }) =>
    unknown
      ? {
          code: 'SPEC_UNKNOWN_UPSTREAM',
          at: s.database!.at,
          message: unknownNameMessage('database', database, declared),
        }
      : statementTimeoutMs !== undefined
        ? undefined
        : {
            code: 'SPEC_NO_DATABASE',
            at: s.sql!.at,
            message:
              declared.length > 0
                ? `the spec has no default database (one without a name): name one with \`database "<name>"\` (declared: ${declared.join(', ')})`
                : 'a sql grant needs a top-level `database env="DATABASE_URL"` (or `database embedded`)',
          },
  check: checkSql,
  place: (s) => paramPlacements(s.params?.fields ?? []),
};

function checkSql(c: BackendCheck<SqlSpec, SqlSettings>): CheckedBackend {
  const { own: s, diag, subject, claims } = c;
  const sql = s.sql!;
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
    ok: true,
    placements,
    exclusive: (s.params?.exclusive ?? []).map((x) => x.value.map((n) => n.value)),
    lower: ({ readOnly }): SqlBackend => ({
      kind: 'sql',
      database: c.settings.database,
      statement: sql.value,
      readOnly,
      maxRows: s.maxRows?.value ?? DEFAULT_MAX_ROWS,
      timeoutMs: c.grant.timeoutMs ?? c.settings.statementTimeoutMs!,
    }),
  };
}

/** Params in order: the i-th is bound to `$i`. */
function paramPlacements(params: readonly FieldSpec[]): Placement[] {
  return params.map((f, i) => plain(f, 'param', 'param', `$${i + 1}`, { position: i + 1 }));
}
