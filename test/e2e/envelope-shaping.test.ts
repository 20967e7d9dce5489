/**
 * The envelope a caller receives, end to end against a real upstream (spec-language.md,
 * "The result envelope" and "Shaping results for agents"): max-bytes bounds the whole
 * envelope on both surfaces, arrays are described by `[*]` paths, and pick/omit shape
 * the result before the envelope is built and show in tools/list.
 */
import { describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** 2,000 rows with a `tags` array each (issue 17's measurement). */
const ROWS = Array.from({ length: 2000 }, (_, i) => ({
  id: i,
  title: `Row ${i} with a title`,
  body: 'Lorem ipsum dolor sit amet. '.repeat(2),
  tags: ['red', 'green', 'blue'].slice(0, i % 4),
  user: { login: `user${i % 7}`, avatar_url: `https://avatars.example/${i}.png` },
}));
const UPSTREAM_BODY = JSON.stringify(ROWS);
const FEW = ROWS.slice(0, 3);

const SPEC = (upstream: string): string => `
wrap "envelope-test" version="1.0.0"
base-url "${upstream}"

can list rows {
    describe "All rows, whole."
    path "/rows"
    max-bytes 20000
}
can list picked-rows {
    describe "Rows, only a few fields."
    path "/rows"
    pick "id" "tags" "user.login"
    max-bytes 20000
}
can list few-rows {
    describe "Three rows without their body."
    path "/few"
    omit "body" "user.avatar_url"
}
`;

interface Coverage {
  truncated: boolean;
  bytes: number;
  upstream_bytes?: number;
  shaped?: boolean;
  items: Record<string, unknown>[];
}
interface Envelope {
  coverage: Coverage;
  result: unknown;
}

let gw: TestGateway;

useGatewayOnUpstream(
  SPEC,
  {
    answer: (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.path === '/few' ? JSON.stringify(FEW) : UPSTREAM_BODY);
    },
  },
  (s) => ({ gw } = s),
);

type McpClient = {
  listTools(): Promise<{
    tools: { name: string; description?: string; outputSchema?: Record<string, unknown> }[];
  }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
};

const clients: [string, () => Promise<McpClient>][] = [
  [
    'SDK v2',
    async () => {
      const c = new ClientV2({ name: 'env-v2', version: '1.0.0' });
      await c.connect(new TransportV2(new URL(`${gw.url}/mcp`)));
      return c as unknown as McpClient;
    },
  ],
  [
    'SDK v1',
    async () => {
      const c = new ClientV1({ name: 'env-v1', version: '1.0.0' });
      await c.connect(new TransportV1(new URL(`${gw.url}/mcp`)));
      return c as unknown as McpClient;
    },
  ],
];

interface ToolResult {
  isError?: boolean;
  structuredContent?: Envelope;
  content: { type: string; text: string }[];
}

describe('max-bytes over REST', () => {
  it('bounds the whole response body, coverage first, with the 2,000 rows described in two entries', async () => {
    const res = await postJson(`${gw.url}/api/list_rows`, {});
    expect(res.status).toBe(200);
    expect(utf8(res.text)).toBeLessThanOrEqual(20_000);
    expect(res.text.startsWith('{"coverage":{"truncated":true,')).toBe(true);
    const env = res.json as Envelope;
    const kept = (env.result as unknown[]).length;
    expect(kept).toBeGreaterThan(50);
    expect(env.coverage.bytes).toBe(utf8(UPSTREAM_BODY));
    expect(env.coverage.items).toEqual([
      { path: '$', length: 2000, kept },
      {
        path: '$[*].tags',
        count: 2000,
        min: 0,
        max: 3,
        total: 3000,
        kept: expect.any(Number) as number,
      },
    ]);
    expect(env.result).toEqual(expect.arrayContaining([ROWS[0], ROWS[1]]));
  });
});

describe.each(clients)('max-bytes and shaping over MCP with the %s client', (_name, connect) => {
  it('bounds content[0].text, whose parsed value is structuredContent', async () => {
    const c = await connect();
    try {
      const r = (await c.callTool({ name: 'list_rows', arguments: {} })) as ToolResult;
      expect(r.isError).toBe(false);
      const text = r.content[0]!.text;
      expect(utf8(text)).toBeLessThanOrEqual(20_000);
      expect(JSON.parse(text)).toEqual(r.structuredContent);
      expect(r.structuredContent!.coverage).toMatchObject({
        truncated: true,
        bytes: utf8(UPSTREAM_BODY),
      });
      expect(r.structuredContent!.coverage.items.map((i) => i.path)).toEqual(['$', '$[*].tags']);
    } finally {
      await c.close();
    }
  });

  it('returns only the picked fields, with upstream_bytes and shaped in coverage', async () => {
    const c = await connect();
    try {
      // Listed first, so a client that checks structuredContent against outputSchema does.
      await c.listTools();
      const r = (await c.callTool({ name: 'list_picked_rows', arguments: {} })) as ToolResult;
      expect(r.isError).toBe(false);
      expect(utf8(r.content[0]!.text)).toBeLessThanOrEqual(20_000);
      const env = r.structuredContent!;
      const rows = env.result as Record<string, unknown>[];
      expect(rows.slice(0, 2)).toEqual([
        { id: 0, tags: [], user: { login: 'user0' } },
        { id: 1, tags: ['red'], user: { login: 'user1' } },
      ]);
      const shapedBytes = utf8(
        JSON.stringify(
          ROWS.map(({ id, tags, user }) => ({ id, tags, user: { login: user.login } })),
        ),
      );
      expect(env.coverage).toMatchObject({
        bytes: shapedBytes,
        upstream_bytes: utf8(UPSTREAM_BODY),
        shaped: true,
      });
      expect(shapedBytes).toBeLessThan(utf8(UPSTREAM_BODY));
    } finally {
      await c.close();
    }
  });

  it('says in tools/list which fields a shaped tool returns, and nothing of it for a plain one', async () => {
    const c = await connect();
    try {
      const { tools } = await c.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get('list_picked_rows')!.description).toBe(
        'Rows, only a few fields. The result keeps only these fields: id, tags, user.login.',
      );
      expect(byName.get('list_few_rows')!.description).toBe(
        'Three rows without their body. The result leaves out these fields: body, user.avatar_url.',
      );
      expect(byName.get('list_rows')!.description).toBe('All rows, whole.');
      const result = (
        byName.get('list_picked_rows')!.outputSchema!.properties as Record<
          string,
          Record<string, unknown>
        >
      ).result!;
      expect(result).toMatchObject({
        additionalProperties: false,
        properties: {
          id: {},
          tags: {},
          user: { properties: { login: {} }, additionalProperties: false },
        },
      });
      // A plain HTTP grant's result is any JSON value, which the instructions say once.
      expect(byName.get('list_rows')!.outputSchema).toBeUndefined();
    } finally {
      await c.close();
    }
  });
});

describe('omit over REST', () => {
  it('drops the named fields, keeps the rest in the upstream order, and reports both sizes', async () => {
    const res = await postJson(`${gw.url}/api/list_few_rows`, {});
    expect(res.status).toBe(200);
    const env = res.json as Envelope;
    expect(env.result).toEqual(
      FEW.map(({ id, title, tags, user }) => ({ id, title, tags, user: { login: user.login } })),
    );
    expect(Object.keys((env.result as object[])[0]!)).toEqual(['id', 'title', 'tags', 'user']);
    expect(env.coverage).toEqual({
      truncated: false,
      bytes: utf8(JSON.stringify(env.result)),
      upstream_bytes: utf8(JSON.stringify(FEW)),
      shaped: true,
      over_budget: false,
      items: [
        { path: '$', length: 3 },
        { path: '$[*].tags', count: 3, min: 0, max: 2, total: 3 },
      ],
    });
    expect(res.text.startsWith('{"coverage":{"truncated":false,"bytes":')).toBe(true);
  });

  it('leaves upstream_bytes and shaped out of a grant without pick or omit', async () => {
    const res = await postJson(`${gw.url}/api/list_rows`, {});
    expect(Object.keys((res.json as Envelope).coverage)).toEqual([
      'truncated',
      'bytes',
      'over_budget',
      'items',
    ]);
  });
});

describe('shaping in the REST descriptions', () => {
  it('states the picked fields in GET /api and in the /openapi.json result schema', async () => {
    const listing = await (await fetch(`${gw.url}/api`)).text();
    expect(listing).toContain('The result keeps only these fields: id, tags, user.login.');
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
      paths: Record<string, { post: { responses: Record<string, unknown> } }>;
    };
    const ok = doc.paths['/api/list_picked_rows']!.post.responses['200'] as {
      content: { 'application/json': { schema: { properties: Record<string, unknown> } } };
    };
    expect(ok.content['application/json'].schema.properties.result).toMatchObject({
      additionalProperties: false,
      properties: { id: {}, tags: {}, user: { properties: { login: {} } } },
    });
  });
});
