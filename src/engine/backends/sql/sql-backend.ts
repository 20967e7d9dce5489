/**
 * sql grants (spec-language.md, `sql` + `params`): the i-th declared param is `$i`,
 * bound, never spliced; read verbs run READ ONLY; rows come back capped at max-rows
 * with the total in coverage; writes without RETURNING answer {"rowCount": n}.
 */
import { createHash } from 'node:crypto';
import type { CompiledSpec, DatabaseDescriptor } from '../../../compiler/descriptor.js';
import type { Env } from '../../../process/env.js';
import { StartupError } from '../../../process/startup-error.js';
import type { BackendKind, BackendOutcome, GrantOf, KindBackend, KindContext } from '../kind.js';
import { bindValue } from './pg-values.js';
import type { SqlExecutor } from './sql-executor.js';
import type { Redactor } from '../../redact.js';
import type { CallArguments } from '../../call-arguments.js';
import { UNTRACED, type UpstreamLeg } from '../../../telemetry/client-span.js';

/**
 * One pool per database the grants name (each with its own size, checkout timeout and,
 * through its grants, statement timeout), opened at start; a grant runs on its own.
 */
export async function createSqlKind({
  env,
  spec,
  grants,
  log,
}: KindContext<'sql'>): Promise<BackendKind<'sql'>> {
  const executors = new Map<string, SqlExecutor>();
  try {
    for (const d of grants) {
      const name = d.backend.database;
      if (executors.has(name)) continue;
      executors.set(name, await openDatabase(databaseOf(spec, name), env, log));
    }
  } catch (err) {
    await Promise.all([...executors.values()].map((e) => e.close()));
    throw err;
  }
  const all = [...executors.values()];
  return {
    prepare: (d, redact) => prepareSqlGrant(d, executors.get(d.backend.database)!, redact),
    secrets: () => all.flatMap((e) => e.secrets()),
    // Ready when every database answers: a grant on any of them would fail otherwise.
    ready: async () => (await Promise.all(all.map((e) => e.ready()))).every(Boolean),
    close: async () => {
      await Promise.all(all.map((e) => e.close()));
    },
  };
}

function databaseOf(spec: CompiledSpec, name: string): DatabaseDescriptor {
  const db =
    spec.databases?.find((x) => x.name === name) ?? (name === '' ? spec.database : undefined);
  if (!db)
    throw new StartupError(
      name === ''
        ? 'sql grants need a `database` in the spec'
        : `sql grants name database "${name}", which the spec does not declare`,
    );
  return db;
}

async function openDatabase(
  db: DatabaseDescriptor,
  env: Env,
  log: KindContext<'sql'>['log'],
): Promise<SqlExecutor> {
  if (db.kind === 'env') {
    const url = env[db.env];
    if (!url)
      throw new StartupError(
        `environment variable ${db.env} is not set; the spec's \`database${db.name ? ` "${db.name}"` : ''}\` reads the Postgres connection string from it`,
      );
    const { createPgExecutor } = await import('./pg-executor.js');
    return createPgExecutor({
      connectionString: url,
      pool: db.pool,
      checkoutTimeoutMs: db.checkoutTimeoutMs,
      ...(log && { log }),
    });
  }
  const { createEmbeddedExecutor } = await import('./embedded-executor.js');
  return createEmbeddedExecutor({
    ...(db.seed !== undefined && { seedFile: db.seed }),
    pool: db.pool,
    checkoutTimeoutMs: db.checkoutTimeoutMs,
    ...(log && { log }),
  });
}

function prepareSqlGrant(d: GrantOf<'sql'>, executor: SqlExecutor, redact: Redactor): KindBackend {
  const { statement, readOnly, maxRows, timeoutMs } = d.backend;
  const params = d.arguments
    .filter((a) => a.in === 'param')
    .sort((a, b) => a.position! - b.position!);
  // One prepared statement per grant and connection; the hash keeps names unique and short.
  const name = `mcpb_${createHash('sha1').update(`${d.name}\0${statement}`).digest('hex').slice(0, 16)}`;
  return {
    invoke(args, _ctx, leg = UNTRACED) {
      // The statement's client span starts with the call: a wait for a pooled connection is its child.
      leg.send();
      return run(args, leg);
    },
  };

  async function run(args: CallArguments, leg: UpstreamLeg): Promise<BackendOutcome> {
    const values = params.map((p) =>
      bindValue(
        p.type,
        Object.hasOwn(args.value, p.name) ? args.value[p.name] : undefined,
        args.texts?.at(p.name),
      ),
    );
    const out = await executor.run({
      name,
      text: statement,
      values,
      readOnly,
      timeoutMs,
      maxRows,
      leg,
      // pick/omit: an error must not quote a row value the shaping would remove.
      ...(d.shape && { quietErrors: true }),
    });
    if (!out.ok) return out;
    const { run } = out;
    if (!run.returnsRows) return { ok: true, value: { result: { rowCount: run.rowCount ?? 0 } } };
    const rows = { rows: run.total, alreadyTruncated: run.total > run.rows.length };
    if (!redact.active) return { ok: true, value: { result: run.rows, ...rows } };
    // A row may hold a credential the gateway knows (an API key stored in a table): the
    // JSON that leaves is searched once, and serves the envelope too.
    const json = JSON.stringify(run.rows);
    if (!redact.found(json))
      return { ok: true, value: { result: run.rows, resultJson: json, ...rows } };
    return { ok: true, value: { result: redact.value(run.rows), ...rows } };
  }
}
