/** What a sql grant needs from a database, whichever runs it (a pg pool, on a server or the embedded one). */
import type { EngineError } from '../../error-catalogue.js';
import type { UpstreamLeg } from '../../../telemetry/client-span.js';

export interface SqlQuery {
  /** Prepared-statement name, one per grant: parsed once per connection. */
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly readOnly: boolean;
  readonly timeoutMs: number;
  readonly maxRows: number;
  /** A shaped grant's: errors name the SQLSTATE only, never quote Postgres' message. */
  readonly quietErrors?: boolean;
  /** The statement's leg of the call (issue 30): a wait for a connection is reported through it. */
  readonly leg?: UpstreamLeg;
}

export interface SqlRun {
  /** At most maxRows rows. */
  readonly rows: readonly Record<string, unknown>[];
  /** Rows the statement produced in all. */
  readonly total: number;
  /** Rows affected, for writes. */
  readonly rowCount: number | null;
  /** Whether the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly returnsRows: boolean;
}

export type SqlOutcome =
  { readonly ok: true; readonly run: SqlRun } | { readonly ok: false; readonly error: EngineError };

export interface SqlExecutor {
  run(q: SqlQuery): Promise<SqlOutcome>;
  ready(): Promise<boolean>;
  /** Secrets the executor holds (the connection password), for redaction. */
  secrets(): readonly string[];
  close(): Promise<void>;
}
