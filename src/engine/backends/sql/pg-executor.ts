/**
 * sql grants on a real Postgres through a `pg` pool: a bounded checkout wait, every
 * statement in its own transaction (READ ONLY for read verbs) with a local statement
 * timeout, always the extended protocol (one statement, bound values), rows streamed
 * and capped at max-rows while the total is counted. The transaction is pipelined:
 * BEGIN, SET LOCAL, the statement and COMMIT go out together before one Sync, so a call
 * costs one round trip to the database, not three (tx-query.ts says how, and why in
 * this shape).
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { engineError, type EngineError } from '../../error-catalogue.js';
import { jsonTypes } from './pg-values.js';
import { sqlError } from './sql-errors.js';
import { ADMITTED, ConnectionGate } from '../upstream/connection-gate.js';
import type { SqlExecutor, SqlOutcome, SqlQuery } from './sql-executor.js';
import { NO_SUCH_STATEMENT, TxQuery } from './tx-query.js';

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
        return failed(sqlError(err, q.timeoutMs, q.quietErrors));
      }
      let discard = false;
      const query = new TxQuery(q);
      try {
        const run = await query.run(client);
        lastOk = Date.now();
        return { ok: true, run };
      } catch (err) {
        // A batch that parsed a statement and then failed leaves pg (and sendFixed) unsure
        // whether the statement exists on this connection, and one that found a statement
        // missing has lost them: start the next call on a fresh connection.
        if (query.parsedHere || (err as { code?: unknown }).code === NO_SUCH_STATEMENT)
          discard = true;
        try {
          await client.query('ROLLBACK');
        } catch {
          discard = true;
        }
        return failed(sqlError(err, q.timeoutMs, q.quietErrors));
      } finally {
        client.release(discard);
      }
    },
  };

  return {
    async run(q: SqlQuery): Promise<SqlOutcome> {
      let entry = gate.enter({ budgetMs: opts.checkoutTimeoutMs, mustFinish: false });
      if (entry instanceof Promise) entry = q.leg ? await q.leg.wait(entry) : await entry;
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

function safePassword(url: string): string | undefined {
  try {
    const p = new URL(url).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}
