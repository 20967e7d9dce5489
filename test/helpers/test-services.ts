/**
 * What the tests talk to, decided once per run (test/global-setup.ts, soak/run.mjs):
 *
 * - Postgres: the server DATABASE_URL or PG* (PGHOST, PGPORT, PGUSER, PGPASSWORD,
 *   PGDATABASE) names, used as it is and never restarted; otherwise a throwaway
 *   cluster started here from the machine's binaries (pg-cluster.ts).
 * - Redis: the server REDIS_URL names; otherwise a private redis-server (redis-server.ts).
 *
 * A service that cannot be had is skipped with its reason, unless
 * MCP_BEAVER_REQUIRE_SERVICES=1 (CI), which makes it a failure. The answer is a set of
 * MCPB_TEST_* variables the helpers read (postgres.ts, needs-services.ts).
 */
import pg from 'pg';
import { findPgBinDir, NO_PG_BINARIES, startPgCluster, type PgCluster } from './pg-cluster.js';
import {
  findRedisServer,
  NO_REDIS_SERVER,
  startRedisServer,
  type RedisServer,
} from './redis-server.js';

type Env = Record<string, string | undefined>;

export interface TestServices {
  /** MCPB_TEST_DATABASE_URL, MCPB_TEST_PG_CLUSTER, MCPB_TEST_REDIS_URL, or their *_SKIP reasons. */
  readonly vars: Record<string, string>;
  /** One line per service: what is used, or why it is skipped. */
  readonly notes: string[];
  /** Stops what was started here, and nothing else. */
  stop(): Promise<void>;
}

const PG_VARS = ['PGHOST', 'PGHOSTADDR', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE'];

/** The URL of a server the user named (DATABASE_URL, else PG*), or undefined. */
export function namedDatabaseUrl(env: Env): string | undefined {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  if (!PG_VARS.some((v) => env[v])) return undefined;
  // The same defaults as the pg driver: localhost:5432, the login user, a database of its name.
  const user = env.PGUSER || env.USER || 'postgres';
  const host = env.PGHOSTADDR || env.PGHOST || 'localhost';
  const socket = host.startsWith('/');
  const u = new URL(`postgres://${socket ? 'localhost' : host}`);
  u.port = env.PGPORT || '5432';
  u.username = encodeURIComponent(user);
  if (env.PGPASSWORD) u.password = encodeURIComponent(env.PGPASSWORD);
  u.pathname = `/${encodeURIComponent(env.PGDATABASE || user)}`;
  if (socket) u.searchParams.set('host', host);
  return u.toString();
}

/** The URL with its password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

export async function startTestServices(
  env: Env = process.env,
  opts: { redis?: boolean } = {},
): Promise<TestServices> {
  const require = env.MCP_BEAVER_REQUIRE_SERVICES === '1';
  const vars: Record<string, string> = {};
  const notes: string[] = [];
  const started: (PgCluster | RedisServer)[] = [];
  const stop = async () => {
    for (const s of started.splice(0).reverse()) await s.stop().catch(() => undefined);
  };
  const missing = (what: string, reason: string) => {
    if (require) throw new Error(`MCP_BEAVER_REQUIRE_SERVICES=1, and ${reason}`);
    vars[what] = reason;
    notes.push(`${what.includes('REDIS') ? 'Redis' : 'Postgres'}: tests skipped, ${reason}`);
  };
  try {
    const named = namedDatabaseUrl(env);
    if (named) {
      await checkReachable(named);
      vars.MCPB_TEST_DATABASE_URL = named;
      notes.push(`Postgres: ${redactUrl(named)} (named by DATABASE_URL/PG*; never restarted)`);
    } else if (!findPgBinDir(env)) {
      missing('MCPB_TEST_DATABASE_SKIP', NO_PG_BINARIES);
    } else {
      const cluster = await startPgCluster();
      started.push(cluster);
      vars.MCPB_TEST_DATABASE_URL = cluster.url;
      vars.MCPB_TEST_PG_CLUSTER = JSON.stringify({ binDir: cluster.binDir, dir: cluster.dir });
      notes.push(`Postgres: a throwaway cluster in ${cluster.dir} on 127.0.0.1:${cluster.port}`);
    }
    if (opts.redis !== false) {
      if (env.REDIS_URL) {
        vars.MCPB_TEST_REDIS_URL = env.REDIS_URL;
        notes.push(`Redis: ${redactUrl(env.REDIS_URL)} (named by REDIS_URL; never stopped)`);
      } else if (!findRedisServer(env)) {
        missing('MCPB_TEST_REDIS_SKIP', NO_REDIS_SERVER);
      } else {
        const redis = await startRedisServer();
        started.push(redis);
        vars.MCPB_TEST_REDIS_URL = redis.url;
        notes.push(`Redis: a private redis-server on 127.0.0.1:${redis.port}`);
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { vars, notes, stop };
}

/** Fails early, naming the server (password hidden), when the named one does not answer. */
async function checkReachable(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
  } catch (err) {
    throw new Error(
      `the database named by DATABASE_URL/PG* (${redactUrl(url)}) does not answer: ${(err as Error).message}`,
      { cause: err },
    );
  } finally {
    await c.end().catch(() => undefined);
  }
}
