/**
 * sql grants on a real Postgres through a `pg` pool: a bounded checkout wait, every
 * statement in its own transaction (READ ONLY for read verbs) with a local statement
 * timeout, always the extended protocol (one statement, bound values), rows streamed
 * and capped at max-rows while the total is counted. The transaction is pipelined:
 * BEGIN, SET LOCAL, the statement and COMMIT go out together before one Sync, so a call
 * costs one round trip to the database, not three.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { engineError, type EngineError } from '../../error-catalogue.js';
import { jsonTypes } from './pg-values.js';
import { sqlError } from './sql-errors.js';
import { ADMITTED, ConnectionGate } from '../connection-gate.js';
import type { SqlExecutor, SqlOutcome, SqlQuery, SqlRun } from './sql-executor.js';

export interface PgExecutorOptions {
  readonly connectionString: string;
  readonly pool: number;
  readonly checkoutTimeoutMs: number;
  readonly log?: Pick<Logger, 'warn'>;
}

/** Outcomes of a call that never held a connection long enough to say how fast it serves. */
const NOT_SERVED = new Set(['POOL_EXHAUSTED', 'DATABASE_UNAVAILABLE']);

function exhausted(checkoutTimeoutMs: number): SqlOutcome {
  return {
    ok: false,
    error: engineError(
      'POOL_EXHAUSTED',
      `every database connection stayed busy for ${checkoutTimeoutMs} ms; retry shortly`,
      { retryAfter: 1 },
    ),
  };
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
  // The gate, not pg's own queue, decides who waits for a connection: pg's queue is
  // unbounded and every waiter in it waits the whole checkout-timeout before it is
  // refused; the gate refuses at once a call that the pool, at the pace it is serving,
  // cannot reach within checkout-timeout (connection-gate.ts).
  const gate = new ConnectionGate(opts.pool);
  const password = safePassword(opts.connectionString);
  /** When a statement last succeeded, for readiness under load. */
  let lastOk = 0;
  /** When a call last found the database unreachable: then busy no longer means up. */
  let lastDown = 0;
  const failed = (error: EngineError): SqlOutcome => {
    if (error.code === 'DATABASE_UNAVAILABLE') lastDown = Date.now();
    return { ok: false, error };
  };

  /** One call on a connection of the pool, once the gate has admitted it. */
  const onPool = {
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
        )
          return exhausted(opts.checkoutTimeoutMs);
        return failed(sqlError(err, q.timeoutMs));
      }
      let discard = false;
      const query = new TxQuery(q);
      try {
        const run = await stream(client, query, q.maxRows);
        lastOk = Date.now();
        return { ok: true, run };
      } catch (err) {
        // A batch that parsed the statement and then failed leaves pg unsure whether the
        // statement exists on this connection: start the next call on a fresh one.
        if (query.parsedHere) discard = true;
        try {
          await client.query('ROLLBACK');
        } catch {
          discard = true;
        }
        return failed(sqlError(err, q.timeoutMs));
      } finally {
        client.release(discard);
      }
    },
  };

  return {
    async run(q: SqlQuery): Promise<SqlOutcome> {
      let entry = gate.enter({ budgetMs: opts.checkoutTimeoutMs, mustFinish: false });
      if (entry instanceof Promise) entry = await entry;
      if (entry !== ADMITTED)
        return {
          ok: false,
          error: engineError(
            'POOL_EXHAUSTED',
            `all ${opts.pool} database connections are busy and ${entry.kind === 'shed' ? entry.waiting : 0} calls wait for one: ` +
              `this call could not get one within the ${opts.checkoutTimeoutMs} ms checkout-timeout; retry shortly`,
            { retryAfter: entry.kind === 'shed' ? entry.retryAfter : 1 },
          ),
        };
      const started = performance.now();
      let out: SqlOutcome | undefined;
      try {
        return (out = await onPool.run(q));
      } finally {
        // A connect that failed (the database down, or exhausted) is not a service time.
        const served = out && (out.ok || !NOT_SERVED.has(out.error.code));
        gate.leave(served ? performance.now() - started : undefined);
      }
    },
    async ready() {
      // Busy is not down: when every connection is checked out and the last statement
      // succeeded (after any call that found the database unreachable), the database is
      // reachable and the replica should keep its traffic.
      if (
        pool.totalCount >= opts.pool &&
        pool.idleCount === 0 &&
        lastOk > Date.now() - 10_000 &&
        lastOk > lastDown
      )
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

/** What this file uses of pg's Query and Connection internals (pg 8.x; not in its types). */
interface PgConnection {
  parse(q: { text: string }): void;
  bind(c: Record<string, never>): void;
  execute(c: { portal: string; rows?: number }): void;
  sync(): void;
}
interface QueryInternals {
  prepare(con: PgConnection): void;
  hasBeenParsed(con: PgConnection): boolean;
  handleCommandComplete(msg: unknown, con: PgConnection): void;
}
const base = pg.Query.prototype as unknown as QueryInternals;

/**
 * One statement in its own transaction, pipelined: Parse/Bind/Execute of `BEGIN [READ
 * ONLY]`, of `SET LOCAL statement_timeout`, then pg's own Parse (first use on the
 * connection)/Bind/Describe/Execute of the named statement, then `COMMIT`, and a single
 * Sync. After an error the server skips to the Sync, leaving the transaction failed
 * (the caller rolls back). Only the statement is described, so only its rows and its
 * CommandComplete reach the result.
 */
class TxQuery extends pg.Query {
  /** Whether this batch carried the named statement's Parse. */
  parsedHere = false;
  private readonly head: readonly string[];
  /** CommandCompletes seen: BEGIN, SET, the statement, COMMIT. */
  private completed = 0;

  constructor(q: SqlQuery) {
    // A named statement always goes through the extended protocol (Parse/Bind/Execute),
    // which refuses stacked statements even with zero parameters.
    super({ name: q.name, text: q.text, values: q.values as unknown[] });
    this.head = [
      q.readOnly ? 'BEGIN READ ONLY' : 'BEGIN',
      `SET LOCAL statement_timeout = ${Math.max(1, Math.floor(q.timeoutMs))}`,
    ];
  }

  prepare(con: PgConnection): void {
    for (const text of this.head) unnamed(con, text);
    this.parsedHere = !base.hasBeenParsed.call(this, con);
    base.prepare.call(this, con);
  }

  /** pg's last step of `prepare`: Execute and Sync; COMMIT goes in between. */
  _getRows(con: PgConnection, rows: number | undefined): void {
    con.execute({ portal: '', ...(rows && { rows }) });
    unnamed(con, 'COMMIT');
    con.sync();
  }

  handleCommandComplete(msg: unknown, con: PgConnection): void {
    if (this.completed === this.head.length) base.handleCommandComplete.call(this, msg, con);
    this.completed += 1;
  }
}

function unnamed(con: PgConnection, text: string): void {
  con.parse({ text });
  con.bind({});
  con.execute({ portal: '' });
}

/** Rows arrive as events and are not accumulated by pg: memory stays at max-rows. */
function stream(client: pg.PoolClient, query: TxQuery, maxRows: number): Promise<SqlRun> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, unknown>[] = [];
    let total = 0;
    query.on('row', (row: Record<string, unknown>) => {
      total += 1;
      if (rows.length < maxRows) rows.push(row);
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
