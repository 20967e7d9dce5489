/**
 * `database embedded seed="file.sql"`: the embedded Postgres (a real server, run as a
 * child process) serves the same kind of grants as a server of your own. The seed path
 * is relative to the spec file, not to the working directory.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';

const SEED = `
CREATE TABLE orders (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code        text NOT NULL UNIQUE,
    total       numeric(10, 2) NOT NULL CHECK (total >= 0),
    created_at  timestamptz NOT NULL DEFAULT '2024-05-01 10:00:00+00'
);
INSERT INTO orders (code, total) VALUES ('A-1', 12.50), ('A-2', 3), ('A-3', 7.25);
`;

const SPEC = `
wrap "embedded-test" version="1.0.0"
database embedded seed="data/seed.sql"

can list orders {
    describe "Orders by id."
    sql "SELECT id, code, total, created_at FROM orders WHERE total >= $1 ORDER BY id"
    params {
        min_total "number" default=0
    }
    max-rows 2
}

can create order {
    describe "Insert an order."
    sql "INSERT INTO orders (code, total) VALUES ($1, $2) RETURNING id, code"
    params {
        code "string" required=#true
        total "number" required=#true
    }
}

can list sneaky {
    describe "A read grant whose statement writes."
    sql "DELETE FROM orders RETURNING id"
}
`;

let dir: string;
let gw: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpb-embedded-'));
  await mkdir(join(dir, 'specs', 'data'), { recursive: true });
  await writeFile(join(dir, 'specs', 'data', 'seed.sql'), SEED);
  gw = await startGateway(SPEC, { file: join(dir, 'specs', 'orders.mcp.kdl') });
});

afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the embedded database', () => {
  it('serves reads, writes and constraint errors like a real Postgres, seeded relative to the spec', async () => {
    const list = await postJson(`${gw.url}/api/list_orders`, {});
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({
      coverage: { truncated: true, rows: 3, items: [{ path: '$', length: 3, kept: 2 }] },
      result: [
        { id: 1, code: 'A-1', total: 12.5, created_at: '2024-05-01T10:00:00.000Z' },
        { id: 2, code: 'A-2', total: 3, created_at: '2024-05-01T10:00:00.000Z' },
      ],
    });

    const created = await postJson(`${gw.url}/api/create_order`, { code: 'B-1', total: 1.5 });
    expect(created.status).toBe(200);
    expect((created.json as { result: unknown }).result).toEqual([{ id: 4, code: 'B-1' }]);

    const dup = await postJson(`${gw.url}/api/create_order`, { code: 'B-1', total: 1.5 });
    expect(dup.status).toBe(409);
    expect((dup.json as { error: unknown }).error).toMatchObject({
      code: 'SQL_CONFLICT',
      details: { sqlstate: '23505', constraint: 'orders_code_key' },
    });

    const negative = await postJson(`${gw.url}/api/create_order`, { code: 'B-2', total: -1 });
    expect(negative.status).toBe(400);
    expect((negative.json as { error: unknown }).error).toMatchObject({
      code: 'SQL_CONSTRAINT',
      details: { sqlstate: '23514' },
    });

    const sneaky = await postJson(`${gw.url}/api/list_sneaky`, {});
    expect(sneaky.status).toBe(502);
    expect((sneaky.json as { error: unknown }).error).toMatchObject({
      details: { sqlstate: '25006' },
    });
    const after = await postJson(`${gw.url}/api/list_orders`, { min_total: 7 });
    expect((after.json as { coverage: unknown }).coverage).toMatchObject({ rows: 2 });

    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
  });
});
