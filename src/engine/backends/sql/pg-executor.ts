/**
 * sql grants on a real Postgres through a `pg` pool: a bounded checkout wait, every
 * statement in its own transaction (READ ONLY for read verbs) with a local statement
 * timeout, always the extended protocol (one statement, bound values), rows streamed
 * and capped at max-rows while the total is counted.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { engineError } from '../../error-catalogue.js';
import { jsonTypes } from './pg-values.js';
import { sqlError } from './sql-errors.js';
import type { SqlExecutor, SqlOutcome, SqlQuery, SqlRun } from './sql-executor.js';

export interface PgExecutorOptions {
  readonly connectionString: string;
  readonly pool: number;
  readonly checkoutTimeoutMs: number;
  readonly log?: Pick<Logger, 'warn'>;
}

export function createPgExecutor(opts: PgExecutorOptions): SqlExecutor {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.pool,
    connectionTimeoutMillis: opts.checkoutTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'mcp-beaver',
    keepAlive: true,
    types: jsonTypes,
  });
  // A dropped connection (Postgres restarting) must not crash the process: idle
  // clients report to the pool, checked-out clients to their own listener.
  pool.on('error', (err) =>
    opts.log?.warn(
      { err: { message: err.message, code: (err as { code?: string }).code } },
      'idle database connection failed',
    ),
  );
  pool.on('connect', (client) => {
    client.on('error', (err) =>
      opts.log?.warn({ err: { message: err.message } }, 'database connection failed'),
    );
  });
  const password = safePassword(opts.connectionString);
  /** When a statement last succeeded, for readiness under load. */
  let lastOk = 0;

  return {
    async run(q: SqlQuery): Promise<SqlOutcome> {
      let client: pg.PoolClient;
      const full = pool.totalCount >= opts.pool;
      try {
        client = await pool.connect();
      } catch (err) {
        // pg says "timeout exceeded" both when every connection stayed busy and when a
        // new connection could not be opened in time; only the first is exhaustion.
        if (
          full &&
          err instanceof Error &&
          /timeout exceeded when trying to connect/i.test(err.message)
        ) {
          return {
            ok: false,
            error: engineError(
              'POOL_EXHAUSTED',
              `every database connection stayed busy for ${opts.checkoutTimeoutMs} ms; retry shortly`,
              { retryAfter: 1 },
            ),
          };
        }
        return { ok: false, error: sqlError(err, q.timeoutMs) };
      }
      let discard = false;
      try {
        await client.query(
          `${q.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(q.timeoutMs))}`,
        );
        const run = await stream(client, q);
        await client.query('COMMIT');
        lastOk = Date.now();
        return { ok: true, run };
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          discard = true;
        }
        return { ok: false, error: sqlError(err, q.timeoutMs) };
      } finally {
        client.release(discard);
      }
    },
    async ready() {
      // Busy is not down: when every connection is checked out and the last statement
      // succeeded, the database is reachable and the replica should keep its traffic.
      if (pool.totalCount >= opts.pool && pool.idleCount === 0 && lastOk > Date.now() - 10_000)
        return true;
      const probe = pool.query('SELECT 1').then(
        () => {
          lastOk = Date.now();
          return true;
        },
        () => false,
      );
      const timeout = new Promise<boolean>((resolve) =>
        setTimeout(() => resolve(false), 1_000).unref(),
      );
      return Promise.race([probe, timeout]);
    },
    secrets: () => (password ? [password] : []),
    close: () => pool.end(),
  };
}

/** Rows arrive as events and are not accumulated by pg: memory stays at max-rows. */
function stream(client: pg.PoolClient, q: SqlQuery): Promise<SqlRun> {
  return new Promise((resolve, reject) => {
    // A named statement always goes through the extended protocol (Parse/Bind/Execute),
    // which refuses stacked statements even with zero parameters.
    const query = new pg.Query({ name: q.name, text: q.text, values: q.values as unknown[] });
    const rows: Record<string, unknown>[] = [];
    let total = 0;
    query.on('row', (row: Record<string, unknown>) => {
      total += 1;
      if (rows.length < q.maxRows) rows.push(row);
    });
    query.on('end', (result: pg.QueryResult) => {
      resolve({ rows, total, rowCount: result.rowCount, returnsRows: result.fields.length > 0 });
    });
    query.on('error', reject);
    void client.query(query);
  });
}

function safePassword(url: string): string | undefined {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}
