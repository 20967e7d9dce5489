/**
 * Admission at the database pool (issue 14, "Overload answered at the door"): the calls
 * that the pool cannot serve are refused at once with 503 POOL_EXHAUSTED and
 * Retry-After, while the connections are still busy, instead of each waiting in pg's
 * queue for the whole checkout-timeout. A statement blocked on an advisory lock that
 * the test holds keeps the one connection busy for as long as the test wants, so
 * "at once" is an outcome (answered while the lock is held), not a timing.
 */
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import type { TestSchema } from '../helpers/postgres.js';
import { startGatewayOnSchema } from '../helpers/schema-gateway.js';

const KEY = randomInt(1, 2 ** 31 - 1);
/** Far longer than the test waits: with pg's own queue, nobody would be answered in time. */
const CHECKOUT_TIMEOUT = '60s';

let schema: TestSchema;
let gw: TestGateway;
let holder: pg.Client;
let stop: (() => Promise<void>) | undefined;

const HAS_DB = needsDatabase();

beforeAll(async () => {
  if (!HAS_DB) return;
  ({ schema, gw, stop } = await startGatewayOnSchema(
    'CREATE TABLE t (id integer);',
    `
wrap "pool-admission" version="1.0.0"
database env="DATABASE_URL" pool=1 checkout-timeout="${CHECKOUT_TIMEOUT}" statement-timeout="60s"
can get turn {
    describe "Waits for the test's advisory lock, then answers."
    sql "SELECT 1 AS done FROM (SELECT pg_advisory_xact_lock(${KEY})) AS l"
}
`,
  ));
  holder = new pg.Client({ connectionString: schema.url });
  await holder.connect();
}, 150_000);

afterAll(async () => {
  try {
    await holder?.end();
  } finally {
    await stop?.();
  }
});

async function lockWaiters(): Promise<number> {
  const r = await holder.query<{ n: number }>(
    `SELECT count(*)::integer AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
    [KEY],
  );
  return r.rows[0]!.n;
}

/** Polls `ok` until it holds; a guard for a test that would otherwise hang, not a bound. */
async function until(ok: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

it('refuses the calls the pool cannot serve with 503 POOL_EXHAUSTED while its connection is still busy', async () => {
  await holder.query('SELECT pg_advisory_lock($1)', [KEY]);
  const answers: { status: number; code?: string; retryAfter: string | null }[] = [];
  const send = () =>
    postJson(`${gw.url}/api/get_turn`, {}).then((r) => {
      const body = r.json as { error?: { code: string } };
      answers.push({
        status: r.status,
        ...(body.error && { code: body.error.code }),
        retryAfter: r.headers.get('retry-after'),
      });
    });
  // The first call holds the pool's one connection, blocked on the lock.
  const first = send();
  await until(async () => (await lockWaiters()) === 1, 'the first call to reach the lock');
  // Nothing is measured yet, so one call may wait (as many as there are connections);
  // the other four are refused at once.
  const rest = Array.from({ length: 5 }, send);
  await until(() => answers.length >= 4, 'four calls refused while the connection is busy');
  expect(answers).toHaveLength(4);
  for (const a of answers) {
    expect(a).toMatchObject({ status: 503, code: 'POOL_EXHAUSTED' });
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  }

  // Released, the busy call and the one that waited are served; every call answered once.
  await holder.query('SELECT pg_advisory_unlock($1)', [KEY]);
  await Promise.all([first, ...rest]);
  expect(answers).toHaveLength(6);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
  expect((await postJson(`${gw.url}/api/get_turn`, {})).status).toBe(200);
});
