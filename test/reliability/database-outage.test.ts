/**
 * The database going away under load (issue 11, security.md "SQL grants"): sql calls
 * keep every pool connection busy, then a TCP forwarder in front of Postgres cuts every
 * connection and refuses new ones. Readiness must report the outage even though the
 * pool is "full" (busy is not down, but down is down), every call in flight or arriving
 * fails cleanly, and once the database is reachable again the gateway recovers by
 * itself. The run's Postgres is never restarted here; the lock keeps sql-grants.test.ts
 * from restarting it under this test.
 *
 * Outcomes only (issue 14): readiness is probed until it reports the outage, however
 * long that takes on a busy machine, and must then keep reporting it; how long it took
 * is printed, not asserted.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import {
  createTestSchema,
  lockSharedPostgres,
  startPgForwarder,
  type PgForwarder,
  type TestSchema,
} from '../helpers/postgres.js';
import { sleep } from '../../bench/lib/sleep.mjs';

const WORKERS = 12;
const POOL = 3;

let unlock: (() => Promise<void>) | undefined;
let schema: TestSchema | undefined;
let forwarder: PgForwarder | undefined;
let gw: TestGateway | undefined;
const agent = new Agent({ connections: WORKERS + 4 });

const HAS_DB = needsDatabase();

beforeAll(async () => {
  if (!HAS_DB) return;
  unlock = await lockSharedPostgres(150_000);
  schema = await createTestSchema(
    `CREATE TABLE items (n integer PRIMARY KEY); INSERT INTO items SELECT generate_series(1, 10);`,
  );
  forwarder = await startPgForwarder();
  gw = await startGateway(
    `
wrap "outage" version="1.0.0"
database env="DATABASE_URL" pool=${POOL} statement-timeout="2s" checkout-timeout="1s"
can get item {
    describe "One item, slowly enough to keep the pool busy."
    sql "SELECT n FROM items, pg_sleep(0.02) WHERE n = $1"
    params {
        n "integer" required=#true min=1 max=10
    }
}
`,
    { env: { DATABASE_URL: schema.urlVia(forwarder.port) } },
  );
}, 180_000);

afterAll(async () => {
  try {
    await agent.close();
    await gw?.close();
    await forwarder?.close();
    await schema?.drop();
  } finally {
    await unlock?.();
  }
});

async function get(path: string): Promise<{ status: number; text: string }> {
  const res = await request(`${gw!.url}${path}`, { dispatcher: agent });
  return { status: res.statusCode, text: await res.body.text() };
}

it('under load: readiness fails while the database is down, calls fail cleanly, and the gateway recovers by itself', async () => {
  const outcomes: { at: number; status: number | string; code?: string }[] = [];
  let running = true;
  const workers = Array.from({ length: WORKERS }, async (_, w) => {
    for (let i = 0; running; i++) {
      const at = Date.now();
      try {
        const res = await request(`${gw!.url}/api/get_item`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n: ((w + i) % 10) + 1 }),
        });
        const body = JSON.parse(await res.body.text()) as { error?: { code: string } };
        outcomes.push({ at, status: res.statusCode, code: body.error?.code ?? 'ok' });
      } catch (err) {
        outcomes.push({ at, status: (err as { code?: string }).code ?? 'error' });
      }
      // Refused calls return at once; do not spin.
      if (outcomes.at(-1)!.status !== 200) await sleep(20);
    }
  });

  const probe = async (ms: number) => {
    const seen: number[] = [];
    for (const until = Date.now() + ms; Date.now() < until;) {
      seen.push((await get('/readyz')).status);
      await sleep(50);
    }
    return seen;
  };

  // Busy is not down: with every connection checked out, readiness stays 200.
  await sleep(1_000);
  const busy = await probe(500);
  expect(busy.filter((s) => s === 200).length).toBeGreaterThanOrEqual(busy.length - 1);

  const downAt = Date.now();
  await forwarder!.down();
  // Readiness comes to say not ready, and keeps saying it while the database is down.
  let notReadyAt: number | undefined;
  while (notReadyAt === undefined) {
    if ((await get('/readyz')).status === 503) notReadyAt = Date.now();
    else await sleep(50);
  }
  const whileDown = await probe(1_000);
  expect(whileDown.length).toBeGreaterThan(0);
  expect(
    whileDown.slice(1).every((s) => s === 503),
    JSON.stringify(whileDown),
  ).toBe(true);

  const upAt = Date.now();
  await forwarder!.up();
  let recoveredAt: number | undefined;
  while (recoveredAt === undefined) {
    if (
      (await get('/readyz')).status === 200 &&
      outcomes.some((o) => o.at > Date.now() - 300 && o.code === 'ok')
    ) {
      recoveredAt = Date.now();
      break;
    }
    await sleep(50);
  }
  running = false;
  await Promise.all(workers);

  const during = outcomes.filter((o) => o.at >= downAt && o.at < upAt);
  const failed = during.filter((o) => o.code !== 'ok');
  expect(failed.length).toBeGreaterThan(0);
  // Clean failures only: catalogue codes with their statuses, never 500, never a dropped connection.
  for (const o of outcomes) {
    expect(typeof o.status, JSON.stringify(o)).toBe('number');
    if (o.code !== 'ok')
      expect(
        ['DATABASE_UNAVAILABLE', 'SQL_TIMEOUT', 'POOL_EXHAUSTED'],
        JSON.stringify(o),
      ).toContain(o.code);
  }
  // Recovered for good: every connection of the pool serves again (rounds of as many
  // calls as it has connections, so none is refused for want of one).
  const after: { status: number; text: string }[] = [];
  for (let round = 0; round < 10; round++)
    after.push(
      ...(await Promise.all(
        Array.from({ length: POOL }, (_, i) =>
          request(`${gw!.url}/api/get_item`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ n: i + 1 }),
          }).then(async (res) => ({ status: res.statusCode, text: await res.body.text() })),
        ),
      )),
    );
  expect(after.filter((r) => r.status !== 200)).toEqual([]);
  expect((await get('/healthz')).status).toBe(200);
  console.log(
    `database outage: ${outcomes.length} calls; while down (${upAt - downAt} ms) ${failed.length} failed cleanly ` +
      `(${[...new Set(failed.map((o) => o.code))].join(', ')}); readiness 503 after ${notReadyAt - downAt} ms; ` +
      `serving again ${recoveredAt! - upAt} ms after the database came back`,
  );
}, 180_000);
