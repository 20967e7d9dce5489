/**
 * The suite's own services (issue 26), through the code the run itself uses
 * (test-services.ts, postgres.ts): with DATABASE_URL or PG* naming a server the suite
 * did not start — here a second throwaway cluster that wants a password — schemas,
 * locks and forwarders go to that server, and it is never restarted nor stopped.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsPgBinaries } from '../helpers/needs-services.js';
import { startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import {
  createTestSchema,
  lockSharedPostgres,
  restartPostgres,
  restartSkipReason,
  startPgForwarder,
} from '../helpers/postgres.js';
import { startTestServices } from '../helpers/test-services.js';

const USER = 'elsewhere';
const PASSWORD = 'pw-8d1f3a-not-trust';
let other: PgCluster;
const HAS_BINARIES = needsPgBinaries();

beforeAll(async () => {
  if (!HAS_BINARIES) return;
  other = await startPgCluster({ user: USER, password: PASSWORD, database: 'other' });
}, 120_000);

afterAll(async () => {
  await other?.stop();
});

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

const schemasOn = async (url: string) =>
  (
    await query<{ n: string }>(
      url,
      `SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'mcpb_test_%'`,
    )
  ).map((r) => r.n);

/** The server's identity across a restart: its postmaster's start time. */
const startedAt = async () =>
  (await query<{ t: Date }>(other.url, 'SELECT pg_postmaster_start_time() AS t'))[0]!.t.getTime();

const pgEnv = () => ({
  PATH: process.env.PATH,
  PGHOST: '127.0.0.1',
  PGPORT: String(other.port),
  PGUSER: USER,
  PGPASSWORD: PASSWORD,
  PGDATABASE: 'other',
});

describe.each([
  ['PG*', pgEnv],
  ['DATABASE_URL', () => ({ PATH: process.env.PATH, DATABASE_URL: other.url })],
])('%s naming another server', (_name, env) => {
  it('makes the schema there, with its user and password, and never restarts or stops it', async () => {
    const before = await startedAt();
    const services = await startTestServices(env(), { redis: false });
    try {
      expect(services.vars.MCPB_TEST_PG_CLUSTER).toBeUndefined();
      expect(services.notes.join('\n')).not.toContain(PASSWORD);
      const unlock = await lockSharedPostgres(30_000, services.vars);
      const schema = await createTestSchema('CREATE TABLE t (x integer)', services.vars);
      try {
        expect(await schemasOn(other.url)).toContain(schema.name);
        // The gateway's URL for the schema reaches it too, directly and through a forwarder.
        const fwd = await startPgForwarder(services.vars);
        try {
          for (const url of [schema.url, schema.urlVia(fwd.port)]) {
            const [row] = await query<{ db: string; sp: string }>(
              url,
              'SELECT current_database() AS db, current_setting($$search_path$$) AS sp',
            );
            expect(row).toEqual({ db: 'other', sp: schema.name });
          }
        } finally {
          await fwd.close();
        }

        expect(restartSkipReason(services.vars)).toMatch(/never restarted/);
        await expect(restartPostgres(services.vars)).rejects.toThrow(/not restarting Postgres/);
        expect(String(await restartPostgres(services.vars).catch((e: unknown) => e))).not.toContain(
          PASSWORD,
        );
      } finally {
        await schema.drop();
        await unlock();
      }
      expect(await schemasOn(other.url)).not.toContain(schema.name);
    } finally {
      await services.stop();
    }
    // Still the same postmaster, still up after the services were stopped.
    expect(await startedAt()).toBe(before);
  });
});

describe('the named servers, checked and passed on', () => {
  it('refuses a named server it cannot log in to, hiding the password', async () => {
    const wrong = 'wrong-pw-5be07c';
    const err = await startTestServices({ ...pgEnv(), PGPASSWORD: wrong }, { redis: false }).catch(
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/does not answer: password authentication failed/);
    expect((err as Error).message).toContain(`127.0.0.1:${other.port}`);
    expect((err as Error).message).not.toContain(wrong);
  });

  it('uses the Redis REDIS_URL names instead of starting one', async () => {
    const named = 'redis://127.0.0.1:6399/4';
    const services = await startTestServices({ ...pgEnv(), REDIS_URL: named });
    try {
      expect(services.vars.MCPB_TEST_REDIS_URL).toBe(named);
      expect(services.notes.join('\n')).toMatch(/named by REDIS_URL/);
    } finally {
      await services.stop();
    }
  });
});
