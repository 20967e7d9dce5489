/**
 * One sql grant call as one pg Query: the statement in its own transaction, pipelined
 * behind a single Sync, with BEGIN, SET LOCAL and COMMIT as named statements written from
 * prebuilt bytes, and the first max-rows rows kept while all are counted. pg-executor.ts
 * runs it on a pooled connection.
 */
import pg from 'pg';
import { bind, EXECUTE, parse, SYNC } from './pg-messages.js';
import type { SqlQuery, SqlRun } from './sql-executor.js';

/** What this file uses of pg's Query and Connection internals (pg 8.x; not in its types). */
interface PgConnection {
  _send(buffer: Buffer): void;
}
interface PgResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): Record<string, unknown>;
  readonly rowCount: number | null;
  readonly fields: readonly unknown[];
}
/** pg.Query's own fields this file reads or sets. */
interface QueryState {
  name: string;
  readonly _result: PgResult;
  _canceledDueToError: unknown;
  callback?: (err: Error | null) => void;
}
interface QueryInternals {
  prepare(con: PgConnection): void;
  hasBeenParsed(con: PgConnection): boolean;
  handleCommandComplete(msg: unknown, con: PgConnection): void;
}
const base = pg.Query.prototype as unknown as QueryInternals;

/**
 * BEGIN [READ ONLY], SET LOCAL statement_timeout = N and COMMIT as named statements,
 * parsed once per connection (issue 19): a call then sends only their Bind and Execute,
 * as prebuilt bytes, and Postgres neither parses them again nor answers ParseComplete.
 * Measured with bench/sql-driver.mjs: with the other changes of this class, ~17 % less
 * client CPU and ~15 % less Postgres CPU per call than parsing them every time.
 */
interface Fixed {
  readonly name: string;
  /** Parse + Bind + Execute, for a connection that has not parsed it yet. */
  readonly first: Buffer;
  /** Bind + Execute. */
  readonly again: Buffer;
}
/** By statement text; as many as the spec has distinct timeouts, times two, plus one. */
const fixedStatements = new Map<string, Fixed>();
function fixed(text: string): Fixed {
  let f = fixedStatements.get(text);
  if (!f) {
    const name = `mcpb_tx_${fixedStatements.size}`;
    const again = Buffer.concat([bind(name), EXECUTE]);
    f = { name, first: Buffer.concat([parse(name, text), again]), again };
    fixedStatements.set(text, f);
  }
  return f;
}
const COMMIT = fixed('COMMIT');
/** The fixed statements each connection has been sent a Parse for. */
const parsedOn = new WeakMap<PgConnection, Set<string>>();
/** Sends `f` on `con`, with its Parse when `con` has not had it; true when it had not. */
function sendFixed(con: PgConnection, f: Fixed): boolean {
  let seen = parsedOn.get(con);
  if (!seen) parsedOn.set(con, (seen = new Set()));
  if (seen.has(f.name)) {
    con._send(f.again);
    return false;
  }
  seen.add(f.name);
  con._send(f.first);
  return true;
}

/** Invalid prepared-statement name: the connection lost statements pg or we count on. */
export const NO_SUCH_STATEMENT = '26000';

/**
 * One statement in its own transaction, pipelined: Bind/Execute of `BEGIN [READ ONLY]`
 * and of `SET LOCAL statement_timeout` (named statements, Parse on first use on the
 * connection), then pg's own Parse (first use)/Bind/Describe of the grant's named
 * statement, its Execute, Bind/Execute of `COMMIT`, and a single Sync. After an error
 * the server skips to the Sync, leaving the transaction failed (the caller rolls back).
 * Only the statement is described, so only its rows and its CommandComplete reach the
 * result. The statement's Parse and Bind stay pg's own, so values are encoded exactly
 * as pg encodes them.
 *
 * The guarantees are carried by every call, never by the connection: each call begins
 * its own transaction, READ ONLY for a read verb, and sets its own local timeout; a
 * named statement only saves parsing that text again. So a statement that changes its
 * session (`SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE`, `SET
 * statement_timeout = 0`: SET is allowed in a read-only transaction) cannot weaken the
 * next call, whose explicit BEGIN READ ONLY and SET LOCAL win over session defaults
 * (test/sql/sql-grants.test.ts, "a statement that changes its session"). Shapes measured
 * or weighed and not taken:
 * - read-only and the timeout as connection state, set once and re-sent on change: the
 *   gateway cannot see a statement change them (statement_timeout is not reported back
 *   to the client), so it would have to re-send them every call anyway;
 * - no BEGIN/COMMIT, the extended protocol's implicit transaction up to Sync: SET LOCAL
 *   there draws a WARNING on every call (Postgres 15, tried), and a CALLed procedure is
 *   not atomic there: it could COMMIT and go on in a fresh read-write transaction;
 * - one simple-protocol Query of `BEGIN READ ONLY; SET LOCAL …` ahead of the statement:
 *   it answers its own ReadyForQuery, which pg takes for the end of the whole query.
 * The named statements are the one new piece of connection state: a statement that drops
 * them (`DEALLOCATE ALL`) makes its own COMMIT fail with SQLSTATE 26000, so that call
 * fails and rolls back, and a connection that answered 26000 is not used again.
 */
export class TxQuery extends pg.Query {
  /** Whether this batch carried a Parse (of the grant's statement or a fixed one). */
  parsedHere = false;
  private readonly begin: Fixed;
  private readonly timeout: Fixed;
  /** CommandCompletes seen: BEGIN, SET, the statement, COMMIT. */
  private completed = 0;
  /** The first max-rows rows, and how many the statement produced in all. */
  private readonly kept: Record<string, unknown>[] = [];
  private total = 0;
  private readonly maxRows: number;

  constructor(q: SqlQuery) {
    // A named statement always goes through the extended protocol (Parse/Bind/Execute),
    // which refuses stacked statements even with zero parameters. Text and values are
    // given as arguments and the name set after: pg copies a config object property by
    // property (with descriptors) on every call, a measurable share of the call.
    super(q.text, q.values as unknown[]);
    (this as unknown as QueryState).name = q.name;
    this.maxRows = q.maxRows;
    this.begin = fixed(q.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    this.timeout = fixed(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(q.timeoutMs))}`);
  }

  prepare(con: PgConnection): void {
    const a = sendFixed(con, this.begin);
    const b = sendFixed(con, this.timeout);
    this.parsedHere = a || b || !base.hasBeenParsed.call(this, con);
    base.prepare.call(this, con);
  }

  /** pg's last step of `prepare` (Execute and Sync): COMMIT goes in between. */
  _getRows(con: PgConnection): void {
    con._send(EXECUTE);
    if (sendFixed(con, COMMIT)) this.parsedHere = true;
    con._send(SYNC);
  }

  handleCommandComplete(msg: unknown, con: PgConnection): void {
    if (this.completed === 2) base.handleCommandComplete.call(this, msg, con);
    this.completed += 1;
  }

  /**
   * Rows are kept here, not emitted as events nor accumulated by pg: memory stays at
   * max-rows, and a row past max-rows is counted without being converted.
   */
  handleRowDescription(msg: { fields: unknown[] }): void {
    (this as unknown as QueryState)._result.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const state = this as unknown as QueryState;
    if (state._canceledDueToError) return;
    this.total += 1;
    if (this.kept.length >= this.maxRows) return;
    try {
      this.kept.push(state._result.parseRow(msg.fields));
    } catch (err) {
      state._canceledDueToError = err;
    }
  }

  /** The run, once the Sync's ReadyForQuery has arrived (pg calls `callback`). */
  run(client: pg.PoolClient): Promise<SqlRun> {
    const state = this as unknown as QueryState;
    return new Promise((resolve, reject) => {
      state.callback = (err) => {
        if (err) reject(err);
        else
          resolve({
            rows: this.kept,
            total: this.total,
            rowCount: state._result.rowCount,
            returnsRows: state._result.fields.length > 0,
          });
      };
      void client.query(this);
    });
  }
}
