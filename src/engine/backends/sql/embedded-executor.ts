/**
 * `database embedded seed="file.sql"`: an in-process Postgres (PGlite, WASM) for the
 * demo and for trying specs without a server. One connection, so calls queue; it
 * accepts `statement_timeout` but does not enforce it (measured), so a slow
 * statement is not cut short here as it is on a real server.
 */
import { readFile } from 'node:fs/promises';
import { StartupError } from '../../startup-error.js';
import { TEXT_PARSERS } from './pg-values.js';
import { sqlError } from './sql-errors.js';
import type { SqlExecutor, SqlOutcome, SqlQuery } from './sql-executor.js';

export interface EmbeddedOptions {
  readonly seedFile?: string;
}

export async function createEmbeddedExecutor(opts: EmbeddedOptions): Promise<SqlExecutor> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ parsers: TEXT_PARSERS });
  if (opts.seedFile) {
    let seed: string;
    try {
      seed = await readFile(opts.seedFile, 'utf8');
    } catch (err) {
      await db.close();
      throw new StartupError(
        `cannot read the embedded database seed ${opts.seedFile}: ${(err as Error).message}`,
      );
    }
    try {
      await db.exec(seed);
    } catch (err) {
      await db.close();
      throw new StartupError(
        `the embedded database seed ${opts.seedFile} failed: ${(err as Error).message}`,
      );
    }
  }
  let closed = false;
  return {
    async run(q: SqlQuery): Promise<SqlOutcome> {
      try {
        const result = await db.transaction(async (tx) => {
          if (q.readOnly) await tx.exec('SET TRANSACTION READ ONLY');
          return tx.query<Record<string, unknown>>(q.text, q.values as unknown[]);
        });
        const total = result.rows.length;
        return {
          ok: true,
          run: {
            rows: total > q.maxRows ? result.rows.slice(0, q.maxRows) : result.rows,
            total,
            rowCount: result.affectedRows ?? null,
            returnsRows: result.fields.length > 0,
          },
        };
      } catch (err) {
        return { ok: false, error: sqlError(err, q.timeoutMs, q.quietErrors) };
      }
    },
    ready: async () => !closed,
    secrets: () => [],
    async close() {
      closed = true;
      await db.close();
    },
  };
}
