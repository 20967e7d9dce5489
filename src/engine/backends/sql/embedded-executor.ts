/**
 * `database embedded seed="file.sql"`: a throwaway Postgres for the demo and for trying
 * specs without a server. It is a real Postgres (embedded-server.ts starts it as a child
 * process on a temporary data directory), so grants run exactly as on a server, through
 * the same pool executor: statement timeouts, READ ONLY, errors and types alike. The
 * data lives as long as the gateway: the folder is removed when it stops.
 */
import type { Logger } from 'pino';
import pg from 'pg';
import { readFile } from 'node:fs/promises';
import { StartupError } from '../../../process/startup-error.js';
import { startEmbeddedServer } from './embedded-server.js';
import { createPgExecutor } from './pg-executor.js';
import type { SqlExecutor } from './sql-executor.js';

export interface EmbeddedOptions {
  readonly seedFile?: string;
  readonly pool: number;
  readonly checkoutTimeoutMs: number;
  readonly log?: Pick<Logger, 'warn'>;
}

export async function createEmbeddedExecutor(opts: EmbeddedOptions): Promise<SqlExecutor> {
  // Read before anything starts, so a missing file costs no server start.
  let seed: string | undefined;
  if (opts.seedFile) {
    try {
      seed = await readFile(opts.seedFile, 'utf8');
    } catch (err) {
      throw new StartupError(
        `cannot read the embedded database seed ${opts.seedFile}: ${(err as Error).message}`,
      );
    }
  }
  // The pool, the seeding connection and a spare for a readiness probe.
  const server = await startEmbeddedServer({ maxConnections: opts.pool + 2 });
  if (seed !== undefined) {
    const client = new pg.Client({ connectionString: server.url });
    try {
      await client.connect();
      await client.query(seed);
    } catch (err) {
      await server.stop();
      throw new StartupError(
        `the embedded database seed ${opts.seedFile} failed: ${(err as Error).message}`,
      );
    } finally {
      await client.end().catch(() => {});
    }
  }
  const executor = createPgExecutor({
    connectionString: server.url,
    pool: opts.pool,
    checkoutTimeoutMs: opts.checkoutTimeoutMs,
    ...(opts.log && { log: opts.log }),
  });
  return {
    run: (q) => executor.run(q),
    ready: async () => server.running() && executor.ready(),
    secrets: () => executor.secrets(),
    async close() {
      await executor.close();
      await server.stop();
    },
  };
}
