/**
 * The `sql` kind (spec-language.md, `sql` + `params`): a grant with `sql` runs one
 * Postgres statement on the spec's `database`. Everything the rest of the gateway knows
 * of the kind is here; its runtime (sql-backend.ts, and `pg`) loads only with a grant of it.
 */
import { SQL_GRANT } from '../../../compiler/kinds/sql-grant.js';
import { sqlClientAttributes, sqlClientSpanName } from '../../../telemetry/conventions.js';
import type { KindDescriptor } from '../kind.js';

/** A read-only statement runs in a READ ONLY transaction: it conflicts with nothing. */
const writes = (b: { readonly readOnly: boolean }): boolean => !b.readOnly;

export const SQL_KIND: KindDescriptor<'sql'> = {
  kind: 'sql',
  word: 'SQL',
  tag: 'Grants that run a SQL statement on the database.',
  grant: SQL_GRANT,
  codes: {
    SQL_TIMEOUT: true,
    SQL_CONFLICT: writes,
    SQL_CONSTRAINT: writes,
    SQL_DATA: true,
    SQL_ERROR: true,
    POOL_EXHAUSTED: true,
    DATABASE_UNAVAILABLE: true,
  },
  target: (b) => `SQL ${b.readOnly ? 'read-only' : 'read-write'}`,
  // A database is reached with the connection string's own role: the gateway's.
  credential: () => 'service',
  route: (b) => `runs on ${b.database === '' ? 'the default database' : `database ${b.database}`}`,
  span: (b, grant) => ({
    name: () => sqlClientSpanName(b.statement, grant),
    attributes: () => sqlClientAttributes(b.statement, grant),
  }),
  // Every database a grant names: start-up names each missing connection string at once.
  variables: (spec, grants) => {
    const names = new Set(grants.map((g) => g.backend.database));
    const dbs = spec.databases ?? (spec.database ? [spec.database] : []);
    return dbs.flatMap((db) => (names.has(db.name) && db.kind === 'env' ? [db.env] : []));
  },
  load: async () => (await import('./sql-backend.js')).createSqlKind,
};
