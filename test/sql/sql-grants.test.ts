/**
 * sql grants against a real PostgreSQL: the run's own throwaway cluster, or the server
 * DATABASE_URL / PG* names (test/helpers/test-services.ts). The last test here restarts
 * Postgres, only when the suite started that cluster itself (otherwise it is skipped,
 * saying why). The file works in its own schema, created and dropped here, and holds
 * the server's lock so that the other files using it do not overlap with the restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import {
  restartPostgres,
  restartSkipReason,
  startPgForwarder,
  waitForPostgres,
  type TestSchema,
} from '../helpers/postgres.js';
import { startGatewayOnSchema } from '../helpers/schema-gateway.js';

const SEED = `
CREATE TABLE items (
    id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name  text NOT NULL UNIQUE,
    qty   integer NOT NULL CHECK (qty >= 0)
);
CREATE TABLE notes (
    id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    item_id  integer NOT NULL REFERENCES items (id),
    body     text NOT NULL
);
CREATE TABLE x (
    id     integer PRIMARY KEY,
    label  text NOT NULL
);
INSERT INTO items (name, qty) VALUES ('anvil', 3), ('bolt', 40), ('cog', 12), ('drill', 1), ('easel', 0);
INSERT INTO x (id, label) VALUES (1, 'one'), (2, 'two'), (3, 'three');
`;

const GRANTS = `
can get item {
    describe "One item by id."
    sql "SELECT id, name, qty FROM items WHERE id = $1"
    params {
        id "integer" required=#true min=1
    }
}

can list items {
    describe "Items by id whose name starts with a prefix."
    sql "SELECT id, name FROM items WHERE name LIKE $1 || '%' ORDER BY id LIMIT $2"
    params {
        prefix "string" default=""
        limit "integer" default=2 min=1 max=100
    }
    max-rows 3
}

can query typed-params {
    describe "Echoes its typed parameters."
    sql "SELECT $1::integer AS i, $2::double precision AS n, $3::boolean AS b, $4::text AS s, $5::text[] AS tags, $6::integer[] AS ids, $7::jsonb AS obj, $8::jsonb AS raw"
    params {
        i "integer" required=#true
        n "number" required=#true
        b "boolean" required=#true
        s "string" required=#true
        tags "string[]" required=#true
        ids "integer[]" required=#true
        obj "object" required=#true {
            a "integer"
            b "string"
        }
        raw "raw" required=#true
    }
}

can get value-kinds {
    describe "One row of every column type the result conversion knows."
    sql #"SELECT 42::bigint AS small_bigint, 9007199254740993::bigint AS huge_bigint, 12.50::numeric AS price, 0.1000000000000000055::numeric AS precise, 100000000000000000000::numeric AS huge_numeric, '2024-05-01 10:00:00+02'::timestamptz AS at, '2024-05-01 10:00:00'::timestamp AS local_at, '2024-05-01'::date AS day, '{"a": [1, 2]}'::jsonb AS jb, '{"b": true}'::json AS j, '\\x00ff10'::bytea AS blob, ARRAY['a', 'b'] AS tags, NULL::text AS nothing, ARRAY[1, NULL, 9007199254740993]::bigint[] AS big_list, ARRAY['12.50', '0.1000000000000000055']::numeric[] AS amounts, ARRAY['\\x00ff'::bytea] AS blobs, ARRAY['2024-05-01 10:00:00'::timestamp] AS local_times"#
}

can list x {
    describe "Every row of x; no parameters."
    sql "SELECT id, label FROM x ORDER BY id"
}

can find x-by-label {
    describe "Rows of x with exactly this label."
    sql "SELECT id, label FROM x WHERE label = $1 ORDER BY id"
    params {
        label "string" required=#true
    }
}

can add x {
    describe "Insert a row into x."
    sql "INSERT INTO x (id, label) VALUES ($1, $2) RETURNING id, label"
    params {
        id "integer" required=#true
        label "string" required=#true
    }
}

can create item {
    describe "Insert an item."
    sql "INSERT INTO items (name, qty) VALUES ($1, $2) RETURNING id, name, qty"
    params {
        name "string"
        qty "integer" required=#true
    }
}

can create note {
    describe "Attach a note to an item (no RETURNING)."
    sql "INSERT INTO notes (item_id, body) VALUES ($1, $2)"
    params {
        item_id "integer" required=#true
        body "string" required=#true
    }
}

can update item-qty {
    describe "Set an item's quantity (no RETURNING)."
    sql "UPDATE items SET qty = $2 WHERE name = $1"
    params {
        name "string" required=#true
        qty "integer" required=#true
    }
}

can list sneaky-update {
    describe "A read grant whose statement writes."
    sql "UPDATE items SET qty = 0 RETURNING id"
}

can get sneaky-delete {
    describe "A read grant that deletes inside a CTE."
    sql "WITH gone AS (DELETE FROM x RETURNING id) SELECT count(*)::integer AS n FROM gone"
}

can query sleep {
    describe "Sleeps, then answers one row."
    sql "SELECT 1 AS done FROM pg_sleep($1)"
    params {
        seconds "number" required=#true min=0 max=10
    }
}

can query exact-numbers {
    describe "Echoes numbers as Postgres reads them."
    sql "SELECT $1::numeric::text AS n, $2::bigint::text AS big, ($3::jsonb -> 'id')::text AS raw_id, ($3::jsonb -> 'x')::text AS raw_x"
    params {
        n "number"
        big "integer"
        raw "raw" kind="object"
    }
}

can query slow-sleep {
    describe "Sleeps with a longer statement timeout."
    sql "SELECT 1 AS done FROM pg_sleep($1)"
    params {
        seconds "number" required=#true min=0 max=10
    }
    timeout "5s"
}
`;

function spec(database: string, grants = GRANTS): string {
  return `
wrap "sql-test" version="1.0.0" {
    describe "sql grants under test."
}
${database}
${grants}
`;
}

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface EnvelopeBody {
  coverage: Record<string, unknown>;
  result: unknown;
}

let schema: TestSchema;
let gw: TestGateway;
let stop: (() => Promise<void>) | undefined;

async function call(
  tool: string,
  args: Record<string, unknown> = {},
  g: TestGateway = gw,
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  return postJson(`${g.url}/api/${tool}`, args);
}

async function rows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  return (await schema.pool.query(sql)).rows as T[];
}

async function readyz(g: TestGateway): Promise<number> {
  return (await fetch(`${g.url}/readyz`)).status;
}

const HAS_DB = needsDatabase();

beforeAll(async () => {
  if (!HAS_DB) return;
  // The restart below must not hit another file's calls (nor another run's, on a shared
  // server): the fixture waits for the server's lock.
  ({ schema, gw, stop } = await startGatewayOnSchema(
    SEED,
    spec('database env="DATABASE_URL" pool=3 statement-timeout="300ms" checkout-timeout="2s"'),
  ));
}, 150_000);

afterAll(() => stop?.());

describe('sql grants over REST', () => {
  it('binds typed parameters with their JSON types and answers rows in the envelope', async () => {
    const res = await call('query_typed_params', {
      i: 5,
      n: 2.5,
      b: true,
      s: "it's",
      tags: ['a', 'b,c', '"q"'],
      ids: [1, 2],
      obj: { a: 1, b: 'x' },
      raw: [1, { k: null }],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      coverage: {
        truncated: false,
        bytes: expect.any(Number),
        over_budget: false,
        items: [
          { path: '$', length: 1 },
          { path: '$[*].tags', count: 1, min: 3, max: 3, total: 3 },
          { path: '$[*].ids', count: 1, min: 2, max: 2, total: 2 },
          { path: '$[*].raw', count: 1, min: 2, max: 2, total: 2 },
        ],
        rows: 1,
      },
      result: [
        {
          i: 5,
          n: 2.5,
          b: true,
          s: "it's",
          tags: ['a', 'b,c', '"q"'],
          ids: [1, 2],
          obj: { a: 1, b: 'x' },
          raw: [1, { k: null }],
        },
      ],
    });
    expect(res.text.startsWith('{"coverage":')).toBe(true);
  });

  it('refuses a value of the wrong JSON type before the database sees it', async () => {
    const res = await call('get_item', { id: '1' });
    expect(res.status).toBe(400);
    expect((res.json as ErrorBody).error.code).toBe('INVALID_ARGUMENTS');
  });

  it('fills declared defaults for omitted parameters', async () => {
    const res = await call('list_items');
    expect(res.status).toBe(200);
    expect((res.json as EnvelopeBody).result).toEqual([
      { id: 1, name: 'anvil' },
      { id: 2, name: 'bolt' },
    ]);
    const prefixed = await call('list_items', { prefix: 'c' });
    expect((prefixed.json as EnvelopeBody).result).toEqual([{ id: 3, name: 'cog' }]);
  });

  it('caps rows at max-rows and reports the full row count in coverage', async () => {
    const res = await call('list_items', { limit: 10 });
    expect(res.status).toBe(200);
    const body = res.json as EnvelopeBody;
    expect(body.result).toEqual([
      { id: 1, name: 'anvil' },
      { id: 2, name: 'bolt' },
      { id: 3, name: 'cog' },
    ]);
    expect(body.coverage).toMatchObject({
      truncated: true,
      rows: 5,
      items: [{ path: '$', length: 5, kept: 3 }],
    });
    const exact = await call('list_items', { limit: 3 });
    expect((exact.json as EnvelopeBody).coverage).toMatchObject({
      truncated: false,
      rows: 3,
      items: [{ path: '$', length: 3 }],
    });
  });

  it('runs a zero-parameter statement and rejects arguments it does not declare', async () => {
    const res = await call('list_x');
    expect(res.status).toBe(200);
    expect((res.json as EnvelopeBody).result).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
      { id: 3, label: 'three' },
    ]);
    const extra = await call('list_x', { where: '1=1' });
    expect(extra.status).toBe(400);
    expect((extra.json as ErrorBody).error.code).toBe('INVALID_ARGUMENTS');
  });

  it('converts column values and array elements: exact numbers only, ISO timestamps, parsed JSON, base64 bytea', async () => {
    const res = await call('get_value_kinds');
    expect(res.status).toBe(200);
    expect((res.json as EnvelopeBody).result).toEqual([
      {
        small_bigint: 42,
        huge_bigint: '9007199254740993',
        price: 12.5,
        precise: '0.1000000000000000055',
        huge_numeric: '100000000000000000000',
        at: '2024-05-01T08:00:00.000Z',
        local_at: '2024-05-01T10:00:00',
        day: '2024-05-01',
        jb: { a: [1, 2] },
        j: { b: true },
        blob: Buffer.from([0x00, 0xff, 0x10]).toString('base64'),
        tags: ['a', 'b'],
        nothing: null,
        // Arrays get the same element conversions as single columns.
        big_list: [1, null, '9007199254740993'],
        amounts: [12.5, '0.1000000000000000055'],
        blobs: [Buffer.from([0x00, 0xff]).toString('base64')],
        local_times: ['2024-05-01T10:00:00'],
      },
    ]);
  });

  it('answers {"rowCount": n} for writes without RETURNING', async () => {
    const updated = await call('update_item_qty', { name: 'drill', qty: 7 });
    expect(updated.status).toBe(200);
    expect((updated.json as EnvelopeBody).result).toEqual({ rowCount: 1 });
    expect(await rows("SELECT qty FROM items WHERE name = 'drill'")).toEqual([{ qty: 7 }]);

    const none = await call('update_item_qty', { name: 'no-such-item', qty: 1 });
    expect((none.json as EnvelopeBody).result).toEqual({ rowCount: 0 });

    const note = await call('create_note', { item_id: 1, body: 'sharp' });
    expect(note.status).toBe(200);
    expect((note.json as EnvelopeBody).result).toEqual({ rowCount: 1 });
  });

  it('returns the written row for a write with RETURNING', async () => {
    const res = await call('create_item', { name: 'funnel', qty: 2 });
    expect(res.status).toBe(200);
    expect((res.json as EnvelopeBody).result).toEqual([
      { id: expect.any(Number), name: 'funnel', qty: 2 },
    ]);
  });

  it('fails a read grant whose statement writes, and leaves the table unchanged', async () => {
    const before = await rows('SELECT id, qty FROM items ORDER BY id');
    const update = await call('list_sneaky_update');
    expect(update.status).toBe(502);
    expect((update.json as ErrorBody).error).toMatchObject({
      code: 'SQL_ERROR',
      details: { sqlstate: '25006' },
    });
    expect((update.json as ErrorBody).error.message).toContain('read-only');
    expect(await rows('SELECT id, qty FROM items ORDER BY id')).toEqual(before);

    const del = await call('get_sneaky_delete');
    expect(del.status).toBe(502);
    expect((del.json as ErrorBody).error.details).toEqual({ sqlstate: '25006' });
    expect(await rows('SELECT count(*)::integer AS n FROM x')).toEqual([{ n: 3 }]);
  });

  it('ends a statement at the statement timeout with 504, and the connections stay usable', async () => {
    // More slow calls than the pool has connections: each one is cut, none is lost.
    const slow = await Promise.all([1, 2, 3, 4].map(() => call('query_sleep', { seconds: 3 })));
    for (const res of slow) {
      expect(res.status).toBe(504);
      expect((res.json as ErrorBody).error).toMatchObject({
        code: 'SQL_TIMEOUT',
        details: { sqlstate: '57014' },
      });
      expect((res.json as ErrorBody).error.message).toContain('300 ms');
    }
    const after = await Promise.all([1, 2, 3, 4].map(() => call('query_sleep', { seconds: 0 })));
    for (const res of after) {
      expect(res.status).toBe(200);
      expect((res.json as EnvelopeBody).result).toEqual([{ done: 1 }]);
    }
  });

  it('lets a grant timeout override the database statement timeout', async () => {
    const res = await call('query_slow_sleep', { seconds: 0.5 });
    expect(res.status).toBe(200);
    expect((res.json as EnvelopeBody).result).toEqual([{ done: 1 }]);
  });

  it('maps a unique violation to 409 with SQLSTATE and constraint but no row data', async () => {
    const value = 'dup-value-5c1e7';
    expect((await call('create_item', { name: value, qty: 1 })).status).toBe(200);
    const res = await call('create_item', { name: value, qty: 1 });
    expect(res.status).toBe(409);
    expect((res.json as ErrorBody).error).toEqual({
      code: 'SQL_CONFLICT',
      message: expect.stringContaining('items_name_key'),
      details: { sqlstate: '23505', constraint: 'items_name_key' },
    });
    expect((res.json as ErrorBody).error.message).toContain('23505');
    expect(res.text).not.toContain(value);
    expect(gw.logs()).not.toContain(value);
    expect(await rows(`SELECT count(*)::integer AS n FROM items WHERE name = '${value}'`)).toEqual([
      { n: 1 },
    ]);
  });

  it('maps a foreign-key violation to 409 without the offending key', async () => {
    const res = await call('create_note', { item_id: 987654321, body: 'orphan-body-9a7' });
    expect(res.status).toBe(409);
    expect((res.json as ErrorBody).error).toMatchObject({
      code: 'SQL_CONFLICT',
      details: { sqlstate: '23503', constraint: 'notes_item_id_fkey' },
    });
    expect(res.text).not.toContain('987654321');
    expect(res.text).not.toContain('orphan-body-9a7');
  });

  it('maps check and not-null violations to 400 with their SQLSTATE', async () => {
    const check = await call('create_item', { name: 'negative-qty-item', qty: -4 });
    expect(check.status).toBe(400);
    expect((check.json as ErrorBody).error).toMatchObject({
      code: 'SQL_CONSTRAINT',
      details: { sqlstate: '23514', constraint: 'items_qty_check' },
    });
    expect(check.text).not.toContain('negative-qty-item');

    const notNull = await call('create_item', { qty: 1 });
    expect(notNull.status).toBe(400);
    expect((notNull.json as ErrorBody).error).toMatchObject({
      code: 'SQL_CONSTRAINT',
      details: { sqlstate: '23502' },
    });
  });

  it('treats injection strings as plain values: the table is intact and its rows unchanged', async () => {
    const before = await rows('SELECT id, label FROM x ORDER BY id');
    for (const label of ["'; DROP TABLE x; --", '1 OR 1=1', "one' OR '1'='1"]) {
      const res = await call('find_x_by_label', { label });
      expect(res.status).toBe(200);
      expect((res.json as EnvelopeBody).result).toEqual([]);
    }
    expect(await rows('SELECT id, label FROM x ORDER BY id')).toEqual(before);

    const bad = await call('get_item', { id: '1 OR 1=1' });
    expect(bad.status).toBe(400);

    // Stored verbatim, read back verbatim.
    const stored = await call('add_x', { id: 100, label: "'; DROP TABLE x; --" });
    expect((stored.json as EnvelopeBody).result).toEqual([
      { id: 100, label: "'; DROP TABLE x; --" },
    ]);
    const found = await call('find_x_by_label', { label: "'; DROP TABLE x; --" });
    expect((found.json as EnvelopeBody).result).toEqual([
      { id: 100, label: "'; DROP TABLE x; --" },
    ]);
    expect(await rows('SELECT id, label FROM x ORDER BY id')).toEqual([
      ...before,
      { id: 100, label: "'; DROP TABLE x; --" },
    ]);
  });
});

describe('numbers reach Postgres exactly as sent', () => {
  const echoed = (res: { json: unknown }): Record<string, unknown> =>
    ((res.json as EnvelopeBody).result as Record<string, unknown>[])[0]!;

  it('refuses a number param a double cannot hold instead of binding it rounded', async () => {
    const res = await postJson(`${gw.url}/api/query_exact_numbers`, '{"n":9007199254740993}');
    expect(res.status).toBe(400);
    const { error } = res.json as ErrorBody;
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain('n is 9007199254740993');
    expect(error.details).toEqual([{ field: '/n', message: expect.stringContaining('n is') }]);
    const big = await postJson(`${gw.url}/api/query_exact_numbers`, '{"big":9007199254740993}');
    expect((big.json as ErrorBody).error.code).toBe('INVALID_ARGUMENTS');
  });

  it('binds numbers a double holds with their value', async () => {
    const res = await postJson(
      `${gw.url}/api/query_exact_numbers`,
      '{"n":0.1,"big":9007199254740991}',
    );
    expect(res.status).toBe(200);
    expect(echoed(res)).toMatchObject({ n: '0.1', big: '9007199254740991' });
  });

  it('binds a raw value to jsonb with the caller’s digits, over REST and MCP', async () => {
    const args = '{"raw":{"id":12345678901234567890,"x":0.10000000000000000001}}';
    const rest = await postJson(`${gw.url}/api/query_exact_numbers`, args);
    expect(rest.status).toBe(200);
    expect(echoed(rest)).toMatchObject({
      raw_id: '12345678901234567890',
      raw_x: '0.10000000000000000001',
    });
    const mcp = await postJson(
      `${gw.url}/mcp`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_exact_numbers","arguments":${args}}}`,
      { accept: 'application/json, text/event-stream' },
    );
    const result = (mcp.json as { result: { structuredContent: EnvelopeBody } }).result;
    expect((result.structuredContent.result as Record<string, unknown>[])[0]).toMatchObject({
      raw_id: '12345678901234567890',
      raw_x: '0.10000000000000000001',
    });
  });
});

describe('the same sql grants through /mcp with the SDK v2 client', () => {
  let client: Client;

  beforeAll(async () => {
    if (!HAS_DB) return;
    client = new Client(
      { name: 'sql-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('lists sql grants as closed-world tools, read verbs read-only', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_item')).toMatchObject({
      annotations: { readOnlyHint: true, openWorldHint: false },
      inputSchema: { type: 'object', required: ['id'] },
    });
    // Not read-only is MCP's default, so a writing grant says only what differs from it.
    expect(byName.get('create_item')?.annotations).toEqual({
      destructiveHint: false,
      openWorldHint: false,
    });
  });

  it('answers the same envelope as /api for the same call', async () => {
    for (const [name, args] of [
      ['list_items', { limit: 10 }],
      ['get_value_kinds', {}],
      ['find_x_by_label', { label: '1 OR 1=1' }],
    ] as const) {
      const rest = await call(name, args);
      const mcp = (await client.callTool({ name, arguments: { ...args } })) as {
        isError?: boolean;
        structuredContent?: unknown;
      };
      expect(mcp.isError).toBe(false);
      expect(mcp.structuredContent).toEqual(rest.json);
    }
  });

  it('reports a constraint error as an isError result naming SQLSTATE and constraint only', async () => {
    const value = 'mcp-dup-value-31b';
    await client.callTool({ name: 'create_item', arguments: { name: value, qty: 1 } });
    const res = (await client.callTool({
      name: 'create_item',
      arguments: { name: value, qty: 1 },
    })) as { isError?: boolean; content: { type: string; text: string }[] };
    expect(res.isError).toBe(true);
    const text = res.content[0]!.text;
    expect(text).toContain('SQL_CONFLICT');
    expect(text).toContain('23505');
    expect(text).toContain('items_name_key');
    expect(text).not.toContain(value);
  });

  it('reports a read grant that writes as an isError result', async () => {
    const res = (await client.callTool({ name: 'list_sneaky_update', arguments: {} })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toContain('25006');
  });
});

describe('a small pool under load', () => {
  let small: TestGateway;

  beforeAll(async () => {
    if (!HAS_DB) return;
    small = await startGateway(
      spec(
        'database env="DATABASE_URL" pool=2 checkout-timeout="300ms" statement-timeout="5s"',
        `can query sleep {
    describe "Sleeps, then answers one row."
    sql "SELECT 1 AS done FROM pg_sleep($1)"
    params {
        seconds "number" required=#true min=0 max=10
    }
}`,
      ),
      { env: { DATABASE_URL: schema.url } },
    );
  });

  afterAll(async () => {
    await small?.close();
  });

  it('answers the calls beyond the pool with 503 POOL_EXHAUSTED, and every call is answered', async () => {
    const pool = 2;
    const results = await Promise.all(
      Array.from({ length: pool + 5 }, () => call('query_sleep', { seconds: 1.5 }, small)),
    );
    const ok = results.filter((r) => r.status === 200);
    const exhausted = results.filter((r) => r.status === 503);
    expect(ok).toHaveLength(pool);
    expect(exhausted).toHaveLength(5);
    for (const r of exhausted) {
      expect((r.json as ErrorBody).error.code).toBe('POOL_EXHAUSTED');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    for (const r of ok) expect((r.json as EnvelopeBody).result).toEqual([{ done: 1 }]);

    // The pool is whole again afterwards.
    const again = await call('query_sleep', { seconds: 0 }, small);
    expect(again.status).toBe(200);
  });
});

describe('a statement that changes its session', () => {
  // One connection, so every call below runs on the connection the previous one changed.
  let one: TestGateway;

  beforeAll(async () => {
    if (!HAS_DB) return;
    one = await startGateway(
      spec(
        'database env="DATABASE_URL" pool=1 statement-timeout="300ms" checkout-timeout="2s"',
        `can run session-read-write {
    describe "Makes the session's transactions read-write by default."
    sql "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"
}

can run session-no-timeout {
    describe "Lifts the session's statement timeout."
    sql "SET statement_timeout = 0"
}

can run deallocate {
    describe "Drops every prepared statement of the session."
    sql "DEALLOCATE ALL"
}

can list sneaky-update {
    describe "A read grant whose statement writes."
    sql "UPDATE items SET qty = 0 RETURNING id"
}

can query sleep {
    describe "Sleeps, then answers one row."
    sql "SELECT 1 AS done FROM pg_sleep($1)"
    params {
        seconds "number" required=#true min=0 max=10
    }
}

can list x {
    describe "Every row of x."
    sql "SELECT id, label FROM x ORDER BY id"
}`,
      ),
      { env: { DATABASE_URL: schema.url } },
    );
  });

  afterAll(async () => {
    await one?.close();
  });

  it('cannot make the next read grant write, nor lift the next call’s timeout', async () => {
    expect((await call('list_x', {}, one)).status).toBe(200);
    const before = await rows('SELECT id, qty FROM items ORDER BY id');
    for (const tool of ['run_session_read_write', 'run_session_no_timeout']) {
      const res = await call(tool, {}, one);
      expect(res.status).toBe(200);
      expect((res.json as EnvelopeBody).result).toEqual({ rowCount: 0 });
    }

    const update = await call('list_sneaky_update', {}, one);
    expect(update.status).toBe(502);
    expect((update.json as ErrorBody).error.details).toEqual({ sqlstate: '25006' });
    expect(await rows('SELECT id, qty FROM items ORDER BY id')).toEqual(before);

    const slow = await call('query_sleep', { seconds: 3 }, one);
    expect(slow.status).toBe(504);
    expect((slow.json as ErrorBody).error).toMatchObject({
      code: 'SQL_TIMEOUT',
      details: { sqlstate: '57014' },
    });
  });

  it('fails alone when it drops the prepared statements, and the calls after it are served', async () => {
    // Parses the grant's statement and the transaction's own on the one connection.
    expect((await call('list_x', {}, one)).status).toBe(200);
    const dropped = await call('run_deallocate', {}, one);
    expect(dropped.status).toBe(502);
    expect((dropped.json as ErrorBody).error.details).toEqual({ sqlstate: '26000' });
    const x = await rows('SELECT id, label FROM x ORDER BY id');
    for (let i = 0; i < 3; i++) {
      const res = await call('list_x', {}, one);
      expect(res.status).toBe(200);
      expect((res.json as EnvelopeBody).result).toEqual(x);
    }
    const update = await call('list_sneaky_update', {}, one);
    expect((update.json as ErrorBody).error.details).toEqual({ sqlstate: '25006' });
    expect((await call('query_sleep', { seconds: 3 }, one)).status).toBe(504);
  });
});

describe('an unreachable database', () => {
  it('answers 503 and keeps /readyz not ready until the database is back', async () => {
    const fwd = await startPgForwarder();
    const g = await startGateway(
      spec(
        'database env="DATABASE_URL" pool=2 statement-timeout="1s" checkout-timeout="500ms"',
        `can list x {
    describe "Every row of x."
    sql "SELECT id, label FROM x ORDER BY id"
}`,
      ),
      { env: { DATABASE_URL: schema.urlVia(fwd.port) } },
    );
    try {
      expect((await call('list_x', {}, g)).status).toBe(200);
      expect(await readyz(g)).toBe(200);

      await fwd.down();
      for (let i = 0; i < 3; i++) {
        const res = await call('list_x', {}, g);
        expect(res.status).toBe(503);
        expect((res.json as ErrorBody).error.code).toBe('DATABASE_UNAVAILABLE');
        expect(res.headers.get('retry-after')).toBe('1');
      }
      expect(await readyz(g)).toBe(503);
      const readyBody = (await (await fetch(`${g.url}/readyz`)).json()) as { status: string };
      expect(readyBody.status).toBe('not ready');
      expect((await fetch(`${g.url}/healthz`)).status).toBe(200);

      await fwd.up();
      let status = 0;
      for (;;) {
        status = (await call('list_x', {}, g)).status;
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
      expect(await readyz(g)).toBe(200);
    } finally {
      await g.close();
      await fwd.close();
    }
  });
});

// Must stay the last test of the file: it restarts the run's Postgres, never one it did
// not start (a server named by DATABASE_URL / PG*: then the test is skipped, saying why).
describe('a Postgres restart during a run', () => {
  it('fails in-flight calls cleanly and serves again without a gateway restart', async (ctx) => {
    const notOurs = restartSkipReason();
    if (notOurs) process.stderr.write(`skipping the Postgres restart test: ${notOurs}\n`);
    ctx.skip(!!notOurs, notOurs);
    // Idle connections in the pool, and calls in flight, when the server goes away.
    await Promise.all([1, 2].map(() => call('get_item', { id: 1 })));
    const inFlight = [1, 2].map(() => call('query_slow_sleep', { seconds: 4 }));
    await new Promise((r) => setTimeout(r, 300));
    try {
      await restartPostgres();
    } finally {
      await waitForPostgres(30_000);
    }

    for (const res of await Promise.all(inFlight)) {
      expect(res.status).toBe(503);
      expect((res.json as ErrorBody).error.code).toBe('DATABASE_UNAVAILABLE');
    }

    let ok: Awaited<ReturnType<typeof call>> | undefined;
    for (;;) {
      const res = await call('get_item', { id: 1 });
      if (res.status === 200) {
        ok = res;
        break;
      }
      expect([503]).toContain(res.status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok, 'a call succeeded once Postgres accepted connections').toBeDefined();
    expect((ok!.json as EnvelopeBody).result).toEqual([{ id: 1, name: 'anvil', qty: 3 }]);
    expect(await readyz(gw)).toBe(200);
    // Every connection of the pool works again, not just one.
    const more = await Promise.all([1, 2, 3, 4].map(() => call('get_item', { id: 2 })));
    expect(more.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});
