/**
 * The tests' PostgreSQL: the server test-services.ts chose for this run (a throwaway
 * cluster the suite started, or the one DATABASE_URL / PG* names), read from the
 * MCPB_TEST_* variables it set. Each test run gets its own schema (created and seeded
 * here, dropped at the end), a connection string that points the gateway at it through
 * `search_path`, and a pool for assertions. A tiny TCP forwarder lets a test make the
 * database unreachable and bring it back without touching the server. A lock per server
 * keeps two test files (or two runs) that share a server from overlapping where one
 * of them restarts it; only a cluster the suite started is ever restarted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { restartPgCluster } from './pg-cluster.js';
import { redactUrl } from './test-services.js';
import { sleep } from '../../bench/lib/sleep.mjs';

type Env = Record<string, string | undefined>;

/** The base URL of the run's database; throws (saying why) when there is none. */
export function testDatabaseUrl(env: Env = process.env): string {
  const url = env.MCPB_TEST_DATABASE_URL;
  if (url) return url;
  throw new Error(
    env.MCPB_TEST_DATABASE_SKIP ??
      'no test database: run the tests through vitest (test/global-setup.ts starts one), ' +
        'or call startTestServices() from test/helpers/test-services.ts first',
  );
}

/** Why there is no database for this run, or undefined when there is one. */
export function databaseSkipReason(env: Env = process.env): string | undefined {
  return env.MCPB_TEST_DATABASE_URL
    ? undefined
    : (env.MCPB_TEST_DATABASE_SKIP ?? 'no test database');
}

/** Why the run's database cannot be restarted by the tests, or undefined when it can. */
export function restartSkipReason(env: Env = process.env): string | undefined {
  if (env.MCPB_TEST_PG_CLUSTER) return undefined;
  if (!env.MCPB_TEST_DATABASE_URL) return databaseSkipReason(env);
  return `the database (${redactUrl(env.MCPB_TEST_DATABASE_URL)}) was named by DATABASE_URL/PG*, not started by the suite: it is never restarted`;
}

/** host and port the pg driver would use for `url` (a socket directory for host, maybe). */
function endpoint(url: string): { host: string; port: number } {
  const c = new pg.Client({ connectionString: url });
  return { host: c.host, port: c.port };
}

function withSchema(base: string, schema: string, viaPort?: number): string {
  const u = new URL(base);
  const prior = u.searchParams.get('options');
  u.searchParams.set('options', `${prior ? `${prior} ` : ''}-c search_path=${schema}`);
  if (viaPort !== undefined) {
    u.hostname = '127.0.0.1';
    u.port = String(viaPort);
    u.searchParams.delete('host');
  }
  return u.toString();
}

export interface TestSchema {
  readonly name: string;
  /** A connection string whose sessions see this schema first (search_path). */
  readonly url: string;
  /** The same URL through 127.0.0.1:`port` (a forwarder in front of Postgres). */
  urlVia(port: number): string;
  /** For assertions; survives dropped connections (a Postgres restart). */
  readonly pool: pg.Pool;
  drop(): Promise<void>;
}

/** Creates a fresh schema and runs `seedSql` in it (plain SQL, several statements allowed). */
export async function createTestSchema(
  seedSql: string,
  env: Env = process.env,
): Promise<TestSchema> {
  const base = testDatabaseUrl(env);
  const name = `mcpb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
    await admin.query(`SET search_path TO ${name}`);
    await admin.query(seedSql);
  } catch (err) {
    await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).catch(() => undefined);
    throw err;
  } finally {
    await admin.end();
  }
  const url = withSchema(base, name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // Idle connections die when Postgres restarts; that must not crash the test run.
  pool.on('error', () => undefined);
  return {
    name,
    url,
    urlVia: (port) => withSchema(base, name, port),
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface TestDatabase {
  readonly name: string;
  /** A connection string to it. */
  readonly url: string;
  /** Drops it (only ever the database this helper created). */
  drop(): Promise<void>;
}

/**
 * A second database on the run's server (issue 43: a spec with two databases), created
 * here with `seedSql` run in it; `drop` removes it, closing what is still connected.
 */
export async function createTestDatabase(
  seedSql: string,
  env: Env = process.env,
): Promise<TestDatabase> {
  const base = testDatabaseUrl(env);
  const name = `mcpb_test_db_${randomBytes(6).toString('hex')}`;
  const run = async (url: string, sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(base, `CREATE DATABASE ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const drop = (): Promise<void> => run(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  try {
    await run(url, seedSql);
  } catch (err) {
    await drop().catch(() => undefined);
    throw err;
  }
  return { name, url, drop };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits until no other test process holds the lock of the run's database server, takes
 * it, and returns its release. A lock whose owner process is gone is taken over.
 */
export async function lockSharedPostgres(
  timeoutMs = 120_000,
  env: Env = process.env,
): Promise<() => Promise<void>> {
  const { host, port } = endpoint(testDatabaseUrl(env));
  const key = createHash('sha256').update(`${host}:${port}`).digest('hex').slice(0, 12);
  const lockDir = join(tmpdir(), `mcp-beaver-postgres-${key}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The lock is a directory holding the owner's pid, renamed into place in one step.
    const staged = `${lockDir}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await mkdir(staged);
    await writeFile(join(staged, 'pid'), String(process.pid));
    try {
      await rename(staged, lockDir);
      return () => rm(lockDir, { recursive: true, force: true });
    } catch (err) {
      await rm(staged, { recursive: true, force: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
    }
    const pid = Number(await readFile(join(lockDir, 'pid'), 'utf8').catch(() => '0'));
    if (pid > 0 && !alive(pid)) {
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`another test run (pid ${pid}) held ${lockDir} for ${timeoutMs} ms`);
    }
    await sleep(200);
  }
}

/** Connects until Postgres accepts connections; throws after `timeoutMs`. */
export async function waitForPostgres(timeoutMs = 60_000, env: Env = process.env): Promise<void> {
  const url = testDatabaseUrl(env);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.query('SELECT 1');
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`Postgres did not come back within ${timeoutMs} ms`);
      await sleep(100);
    } finally {
      await c.end().catch(() => undefined);
    }
  }
}

/** Restarts the run's Postgres, which must be a cluster the suite started (pg_ctl restart). */
export async function restartPostgres(env: Env = process.env): Promise<void> {
  const reason = restartSkipReason(env);
  if (reason) throw new Error(`not restarting Postgres: ${reason}`);
  const { binDir, dir } = JSON.parse(env.MCPB_TEST_PG_CLUSTER!) as { binDir: string; dir: string };
  await restartPgCluster(binDir, dir);
}

/** A TCP forwarder to Postgres that a test can take down (refusing, cutting) and bring back. */
export interface PgForwarder {
  readonly port: number;
  /** Cuts every open connection and stops listening: connections are refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startPgForwarder(env: Env = process.env): Promise<PgForwarder> {
  const target = endpoint(testDatabaseUrl(env));
  // A host that is a directory is the server's Unix socket directory (libpq's convention).
  const dial = () =>
    target.host.startsWith('/')
      ? connect(join(target.host, `.s.PGSQL.${target.port}`))
      : connect(target.port, target.host);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = dial();
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        const cut = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('close', cut);
        upstream.on('close', cut);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    down: stop,
    up: listen,
    close: stop,
  };
}
