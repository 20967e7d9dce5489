/**
 * `database embedded` in the single executable, in place of
 * src/engine/backends/sql/embedded-executor.ts: the Postgres binaries it runs are not in
 * the binary, so start-up stops with a StartupError that says what to do instead.
 */
import type { EmbeddedOptions } from '../../src/engine/backends/sql/embedded-executor.js';
import type { SqlExecutor } from '../../src/engine/backends/sql/sql-executor.js';
import { StartupError } from '../../src/process/startup-error.js';

export async function createEmbeddedExecutor(_opts: EmbeddedOptions): Promise<SqlExecutor> {
  throw new StartupError(
    'embedded databases (`database embedded`) need the npm package; with the single executable, use `database env="..."` and a Postgres server',
  );
}
