/**
 * How a URI is matched against resource templates, end to end (spec-language.md,
 * "Resources and prompts"): linear in the URI, one answer (a variable takes the shortest
 * text up to the literal after it), and nothing over 2 KiB matches. A hostile URI read
 * by a caller holding no scope is answered as not found while /healthz keeps answering;
 * the upstream's recorded paths show which values a read gave the grant.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const ORDERS_KEY = 'inbound-orders-key-123';
const NOBODY_KEY = 'inbound-nobody-key-456';

function spec(upstream: string): string {
  return `
wrap "match-test" version="1"
base-url "${upstream}/api"
access {
    api-key env="O" scopes="orders:read"
    api-key env="N" scopes="nothing"
}
can get order {
    describe "One order of a customer."
    path "/customers/{customer}/orders/{order}"
    scope "orders:read"
}
can get cell {
    describe "One cell of the grid."
    path "/grid/{x}/{y}/{z}"
    scope "orders:read"
}
resource "shop://orders/{customer}-{order}" from="get_order"
resource "grid://{x}.{y}.{z}" from="get_cell"
`;
}

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(
  spec,
  { env: { O: ORDERS_KEY, N: NOBODY_KEY } },
  (s) => ({ upstream, gw } = s),
);

const as = (key: string) => ({ authorization: `Bearer ${key}` });

interface RpcReply {
  result?: { contents: { uri: string; text: string }[] };
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** resources/read in 2025-11-25 (no Mcp-Name header, so the URI may be megabytes long). */
async function mcpRead(
  uri: string,
  key: string,
): Promise<{ status: number; headers: Headers; json: RpcReply }> {
  const r = await postJson(
    `${gw.url}/mcp`,
    { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } },
    { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY, ...as(key) },
  );
  return { status: r.status, headers: r.headers, json: r.json as RpcReply };
}

/** The hostile shapes: runs of the templates' own separators, ending in a `/`. */
const HOSTILE = {
  orders: (n: number) => `shop://orders/${'-'.repeat(n)}/`,
  grid: (n: number) => `grid://${'.'.repeat(n)}/`,
};
/** Just under the 4 MiB request body limit, with room for the JSON-RPC envelope. */
const HUGE = 4 * 1024 * 1024 - 256;

describe('a hostile URI from a caller holding no scope', () => {
  it('is not found over MCP at once, for both templates, while /healthz keeps answering', async () => {
    const before = upstream.requests.length;
    for (const make of [HOSTILE.orders, HOSTILE.grid]) {
      const read = mcpRead(make(HUGE), NOBODY_KEY);
      const health = fetch(`${gw.url}/healthz`);
      const [r, h] = await Promise.all([read, health]);
      expect(h.status).toBe(200);
      expect(r.status).toBe(200);
      expect(r.json.error?.code).toBe(-32002);
      expect(r.json.error?.data?.code).toBe('RESOURCE_NOT_FOUND');
      // The answer does not echo megabytes back: the URI is cut in the message and data.
      expect(JSON.stringify(r.json).length).toBeLessThan(1000);
    }
    expect(upstream.requests.length).toBe(before);
    // Nor do the log lines hold the URI.
    expect(gw.logs()).not.toMatch(/-{1000}|\.{1000}/);
  });

  it('is not found over REST too, and 40,000 characters are as harmless as 4 MiB', async () => {
    for (const uri of [HOSTILE.orders(40_000), HOSTILE.grid(40_000), HOSTILE.grid(HUGE)]) {
      const read = postJson(`${gw.url}/api/resources/read`, { uri }, as(NOBODY_KEY));
      const health = fetch(`${gw.url}/healthz`);
      const [r, h] = await Promise.all([read, health]);
      expect(h.status).toBe(200);
      expect(r.status).toBe(404);
      expect((r.json as { error: { code: string } }).error.code).toBe('RESOURCE_NOT_FOUND');
      expect(r.text.length).toBeLessThan(1000);
    }
  });

  it('is refused for its missing scope when it does match, and the grant is not called', async () => {
    const before = upstream.requests.length;
    const r = await mcpRead('shop://orders/acme-42', NOBODY_KEY);
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/insufficient_scope.*scope="orders:read"/);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('one answer per URI', () => {
  it('gives the first variable the shortest text up to the next literal: x-y-z is x and y-z', async () => {
    const r = await mcpRead('shop://orders/x-y-z', ORDERS_KEY);
    expect(r.json.error).toBeUndefined();
    expect(upstream.requests.at(-1)!.path).toBe('/api/customers/x/orders/y-z');
    const rest = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'grid://1.2.3.4' },
      as(ORDERS_KEY),
    );
    expect(rest.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/api/grid/1/2/3.4');
  });

  it('does not look past a / for a later literal: a variable never holds one', async () => {
    const before = upstream.requests.length;
    const r = await mcpRead('shop://orders/a/b-c', ORDERS_KEY);
    expect(r.json.error?.data?.code).toBe('RESOURCE_NOT_FOUND');
    expect(upstream.requests.length).toBe(before);
  });
});

describe('the 2 KiB bound', () => {
  /** A grid URI of exactly `length` characters, each value under the 1024-character path limit. */
  const gridOf = (length: number): string => {
    const head = `grid://${'a'.repeat(680)}.${'b'.repeat(680)}.`;
    return head + 'c'.repeat(length - head.length);
  };

  it('matches a URI of 2048 characters and not one of 2049', async () => {
    const at = gridOf(2048);
    expect(at.length).toBe(2048);
    const ok = await mcpRead(at, ORDERS_KEY);
    expect(ok.json.error).toBeUndefined();
    expect(ok.json.result!.contents[0]!.uri).toBe(at);
    const before = upstream.requests.length;
    const over = await mcpRead(gridOf(2049), ORDERS_KEY);
    expect(over.json.error?.data?.code).toBe('RESOURCE_NOT_FOUND');
    expect(over.json.error?.message).toMatch(/over 2 KiB/);
    const rest = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: gridOf(2049) },
      as(ORDERS_KEY),
    );
    expect(rest.status).toBe(404);
    expect(upstream.requests.length).toBe(before);
  });

  it('counts characters, not UTF-8 bytes: 2048 characters of which some are not ASCII match', async () => {
    const head = `grid://${'a'.repeat(680)}.${'é'.repeat(680)}.`;
    const uri = head + 'c'.repeat(2048 - head.length);
    const r = await mcpRead(uri, ORDERS_KEY);
    expect(r.json.error).toBeUndefined();
  });
});

describe('the OpenAPI document', () => {
  it('describes template URIs with a pattern and a maxLength that agree with what the gateway reads', async () => {
    const res = await fetch(`${gw.url}/openapi.json`, { headers: as(ORDERS_KEY) });
    const doc = (await res.json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }>;
    };
    const body = doc.paths['/api/resources/read']!.post.requestBody.content['application/json'] as {
      schema: { properties: { uri: { maxLength: number; anyOf: { pattern: string }[] } } };
    };
    const { uri } = body.schema.properties;
    expect(uri.maxLength).toBe(2048);
    const patterns = uri.anyOf.map((c) => new RegExp(c.pattern, 'u'));
    expect(patterns).toHaveLength(2);
    const uris = [
      'shop://orders/x-y-z',
      'shop://orders/--y',
      'shop://orders/x-',
      'shop://orders/a/b-c',
      'grid://1.2.3.4',
      'grid://1..3',
      'grid://1.2',
      'grid://1.2.3?',
    ];
    for (const u of uris) {
      const described = patterns.some((p) => p.test(u));
      const r = await mcpRead(u, ORDERS_KEY);
      const found = r.json.error?.data?.code !== 'RESOURCE_NOT_FOUND';
      expect(found, u).toBe(described);
    }
  });
});
