/**
 * pick/omit on sql grants against the machine's real PostgreSQL (spec-language.md,
 * "Shaping results (`pick` and `omit`)"): rows are shaped before the envelope, coverage.bytes is
 * the shaped size and coverage.upstream_bytes the rows serialized as JSON. Works in its
 * own schema under the shared-Postgres lock, like the other files here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import type { TestSchema } from '../helpers/postgres.js';
import { startGatewayOnSchema } from '../helpers/schema-gateway.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

const SEED = `
CREATE TABLE tickets (
    id      integer PRIMARY KEY,
    title   text NOT NULL,
    secret  text NOT NULL,
    tags    text[] NOT NULL,
    meta    jsonb NOT NULL
);
INSERT INTO tickets
SELECT i, 'Ticket ' || i, 'internal note ' || i,
       (ARRAY['red', 'green', 'blue'])[1:(i % 4)],
       jsonb_build_object('owner', 'user' || (i % 5), 'score', i)
FROM generate_series(1, 2000) AS i;
`;

const SPEC = `
wrap "sql-shaping" version="1.0.0"
database env="DATABASE_URL" pool=2
can list tickets {
    describe "Tickets, newest first, without internal fields."
    sql "SELECT id, title, secret, tags, meta FROM tickets ORDER BY id DESC LIMIT $1"
    params {
        limit "integer" default=3 min=1 max=2000
    }
    omit "secret" "meta.score"
    max-rows 2000
    max-bytes 20000
}
can get ticket {
    describe "One ticket's title and tags."
    sql "SELECT id, title, secret, tags, meta FROM tickets WHERE id = $1"
    params {
        id "integer" required=#true min=1
    }
    pick "title" "meta.owner"
}
`;

interface Envelope {
  coverage: Record<string, unknown> & { items: Record<string, unknown>[] };
  result: Record<string, unknown>[];
}

let schema: TestSchema;
let gw: TestGateway;
let stop: (() => Promise<void>) | undefined;

const HAS_DB = needsDatabase();

beforeAll(async () => {
  if (!HAS_DB) return;
  ({ schema, gw, stop } = await startGatewayOnSchema(SEED, SPEC));
}, 150_000);

afterAll(() => stop?.());

describe('pick and omit on sql grants over REST', () => {
  it('omits the named columns and nested keys, and reports the rows’ JSON size as upstream_bytes', async () => {
    const res = await postJson(`${gw.url}/api/list_tickets`, {});
    expect(res.status).toBe(200);
    const env = res.json as Envelope;
    expect(env.result).toEqual([
      { id: 2000, title: 'Ticket 2000', tags: [], meta: { owner: 'user0' } },
      { id: 1999, title: 'Ticket 1999', tags: ['red', 'green', 'blue'], meta: { owner: 'user4' } },
      { id: 1998, title: 'Ticket 1998', tags: ['red', 'green'], meta: { owner: 'user3' } },
    ]);
    const rows = (
      await schema.pool.query(
        'SELECT id, title, secret, tags, meta FROM tickets ORDER BY id DESC LIMIT 3',
      )
    ).rows;
    expect(env.coverage).toEqual({
      truncated: false,
      bytes: utf8(JSON.stringify(env.result)),
      upstream_bytes: utf8(JSON.stringify(rows)),
      shaped: true,
      over_budget: false,
      items: [
        { path: '$', length: 3 },
        { path: '$[*].tags', count: 3, min: 0, max: 3, total: 5 },
      ],
      rows: 3,
    });
    expect(res.text).not.toContain('internal note');
  });

  it('cuts 2,000 shaped rows so the whole body fits max-bytes, tags described in one entry', async () => {
    const res = await postJson(`${gw.url}/api/list_tickets`, { limit: 2000 });
    expect(res.status).toBe(200);
    expect(utf8(res.text)).toBeLessThanOrEqual(20_000);
    const env = res.json as Envelope;
    expect(env.coverage).toMatchObject({ truncated: true, shaped: true, rows: 2000 });
    expect(env.coverage.items).toEqual([
      { path: '$', length: 2000, kept: env.result.length },
      expect.objectContaining({ path: '$[*].tags', count: 2000, min: 0, max: 3, total: 3000 }),
    ]);
    expect(res.text).not.toContain('internal note');
  });

  it('picks fields of one row, keeping the columns in the statement’s order', async () => {
    const res = await postJson(`${gw.url}/api/get_ticket`, { id: 7 });
    expect((res.json as Envelope).result).toEqual([
      { title: 'Ticket 7', meta: { owner: 'user2' } },
    ]);
  });
});

describe('a shaped sql grant through /mcp with the SDK v2 client', () => {
  it('lists what the result holds and returns structuredContent that matches it', async () => {
    const client = new Client({ name: 'sql-shaping', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const get = tools.find((t) => t.name === 'get_ticket')!;
      expect(get.description).toBe(
        "One ticket's title and tags. The result keeps only these fields: title, meta.owner.",
      );
      const r = (await client.callTool({ name: 'get_ticket', arguments: { id: 3 } })) as {
        isError?: boolean;
        structuredContent?: Envelope;
        content: { text: string }[];
      };
      expect(r.isError).toBe(false);
      expect(r.structuredContent!.result).toEqual([
        { title: 'Ticket 3', meta: { owner: 'user3' } },
      ]);
      expect(JSON.parse(r.content[0]!.text)).toEqual(r.structuredContent);
    } finally {
      await client.close();
    }
  });
});
