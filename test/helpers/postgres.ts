/**
 * The machine's real PostgreSQL for sql-grant tests: each test run gets its own
 * schema (created and seeded here, dropped at the end), a connection string that
 * points the gateway at it through `search_path`, and a pool for assertions.
 * A tiny TCP forwarder lets a test make the database unreachable and bring it back
 * without touching the shared server. A machine-wide lock keeps two test runs (two
 * checkouts, two people) from using the server at once: one of them restarts it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export const PG_HOST = '127.0.0.1';
export const PG_PORT = 5432;
/** Trust auth, user postgres, database `test`. */
export const PG_BASE_URL = `postgres://postgres@${PG_HOST}:${PG_PORT}/test`;

export interface TestSchema {
  readonly name: string;
  /** A connection string whose sessions see this schema first (search_path). */
  readonly url: string;
  /** The same URL with another host:port (a forwarder in front of Postgres). */
  urlVia(port: number): string;
  /** For assertions; survives dropped connections (a Postgres restart). */
  readonly pool: pg.Pool;
  drop(): Promise<void>;
}

function schemaUrl(schema: string, port = PG_PORT): string {
  const options = encodeURIComponent(`-c search_path=${schema}`);
  return `postgres://postgres@${PG_HOST}:${port}/test?options=${options}`;
}

/** Creates a fresh schema and runs `seedSql` in it (plain SQL, several statements allowed). */
export async function createTestSchema(seedSql: string): Promise<TestSchema> {
  const name = `mcpb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_BASE_URL });
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
  const pool = new pg.Pool({ connectionString: schemaUrl(name), max: 2 });
  // Idle connections die when Postgres restarts; that must not crash the test run.
  pool.on('error', () => undefined);
  return {
    name,
    url: schemaUrl(name),
    urlVia: (port) => schemaUrl(name, port),
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      const c = new pg.Client({ connectionString: PG_BASE_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

const LOCK_DIR = join(tmpdir(), 'mcp-beaver-postgres-tests.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits until no other test process on this machine holds the shared-Postgres lock,
 * takes it, and returns its release. A lock whose owner process is gone is taken over.
 */
export async function lockSharedPostgres(timeoutMs = 120_000): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The lock is a directory holding the owner's pid, renamed into place in one step.
    const staged = `${LOCK_DIR}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await mkdir(staged);
    await writeFile(join(staged, 'pid'), String(process.pid));
    try {
      await rename(staged, LOCK_DIR);
      return () => rm(LOCK_DIR, { recursive: true, force: true });
    } catch (err) {
      await rm(staged, { recursive: true, force: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
    }
    const pid = Number(await readFile(join(LOCK_DIR, 'pid'), 'utf8').catch(() => '0'));
    if (pid > 0 && !alive(pid)) {
      await rm(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`another test run (pid ${pid}) held ${LOCK_DIR} for ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls `pg_isready` until Postgres accepts connections; throws after `timeoutMs`. */
export async function waitForPostgres(timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await run('pg_isready', ['-h', PG_HOST, '-p', String(PG_PORT), '-t', '1']);
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`Postgres did not come back within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Restarts the machine's Postgres cluster (needs root or the postgres user). */
export async function restartPostgres(): Promise<void> {
  const { stdout } = await run('ls', ['/etc/postgresql']);
  const version = stdout.trim().split(/\s+/)[0];
  if (!version) throw new Error('no cluster under /etc/postgresql');
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
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

export async function startPgForwarder(): Promise<PgForwarder> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(PG_PORT, PG_HOST);
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
      s.listen(port, PG_HOST, () => {
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
