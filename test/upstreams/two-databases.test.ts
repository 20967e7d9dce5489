/**
 * Two real Postgres databases behind one spec (spec-language.md, "Many upstreams and
 * databases in one spec"): the run's database and a second one created on the same
 * server here (and dropped here), each grant on its own, each with its own pool and
 * statement timeout, read verbs read-only on each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import {
  createTestDatabase,
  createTestSchema,
  type TestDatabase,
  type TestSchema,
} from '../helpers/postgres.js';

const ORDERS_SEED = `
CREATE TABLE orders (id integer PRIMARY KEY, item text NOT NULL);
INSERT INTO orders VALUES (1, 'anvil'), (2, 'bolt');
`;
const ANALYTICS_SEED = `
CREATE TABLE events (id integer PRIMARY KEY, kind text NOT NULL);
INSERT INTO events VALUES (10, 'signup');
`;

const SPEC = `wrap "two-dbs" version="1"
database "orders" env="ORDERS_DB_URL" pool=2 statement-timeout="5s"
database "analytics" env="ANALYTICS_DB_URL" pool=1 statement-timeout="200ms"
can list orders {
    describe "Orders."
    database "orders"
    sql "SELECT id, item FROM orders ORDER BY id"
}
can list events {
    describe "Events."
    database "analytics"
    sql "SELECT id, kind FROM events ORDER BY id"
}
can list sneaky-orders {
    describe "A read verb trying to write."
    database "orders"
    sql "INSERT INTO orders VALUES (3, 'cog') RETURNING id"
}
can list sneaky-events {
    describe "A read verb trying to write."
    database "analytics"
    sql "INSERT INTO events VALUES (11, 'login') RETURNING id"
}
can get slow-orders {
    describe "Sleeps 1 s on orders."
    database "orders"
    sql "SELECT pg_sleep(1) IS NULL AS slept"
}
can get slow-events {
    describe "Sleeps 1 s on analytics."
    database "analytics"
    sql "SELECT pg_sleep(1) IS NULL AS slept"
}
`;

const ready = needsDatabase();

describe('two databases, each grant on its own', () => {
  let orders: TestSchema;
  let analytics: TestDatabase;
  let gw: TestGateway;

  beforeAll(async () => {
    if (!ready) return;
    orders = await createTestSchema(ORDERS_SEED);
    analytics = await createTestDatabase(ANALYTICS_SEED);
    gw = await startGateway(SPEC, {
      env: { ORDERS_DB_URL: orders.url, ANALYTICS_DB_URL: analytics.url },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await orders?.drop();
    await analytics?.drop();
  });

  it('runs each grant on the database it names', async () => {
    const a = await postJson(`${gw.url}/api/list_orders`, {});
    expect(a.status).toBe(200);
    expect((a.json as { result: unknown }).result).toEqual([
      { id: 1, item: 'anvil' },
      { id: 2, item: 'bolt' },
    ]);
    const b = await postJson(`${gw.url}/api/list_events`, {});
    expect(b.status).toBe(200);
    expect((b.json as { result: unknown }).result).toEqual([{ id: 10, kind: 'signup' }]);
  });

  it('refuses a read verb that writes, on each database, and writes nothing', async () => {
    for (const grant of ['list_sneaky_orders', 'list_sneaky_events']) {
      const res = await postJson(`${gw.url}/api/${grant}`, {});
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(res.json)).toMatch(/read-only/);
    }
    const left = await orders.pool.query('SELECT count(*)::int AS n FROM orders');
    expect(left.rows[0].n).toBe(2);
  });

  it("ends a statement at its own database's statement timeout", async () => {
    const slow = await postJson(`${gw.url}/api/get_slow_events`, {});
    expect((slow.json as { error: { code: string } }).error.code).toBe('SQL_TIMEOUT');
    expect((slow.json as { error: { message: string } }).error.message).toContain('200 ms');
    // The same statement on the other database, whose timeout is 5 s, finishes.
    const fine = await postJson(`${gw.url}/api/get_slow_orders`, {});
    expect(fine.status).toBe(200);
  });

  it('is ready only while both databases answer', async () => {
    const res = await fetch(`${gw.url}/readyz`);
    expect(res.status).toBe(200);
  });
});
