/**
 * What resources/read and prompts/get refuse, on both surfaces (POST /mcp, and POST
 * /api/resources/read and /api/prompts/get): a refusal's size does not grow with the
 * request (100,000 undeclared keys are named as the first few and a count, as tools/call
 * names them), and a lone surrogate, which no URI can hold, is refused as invalid
 * arguments naming where it was, never an internal error. The upstream's request count
 * shows nothing was called.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const FULL_KEY = 'surface-refusals-full-7d21aa';
const GUEST_KEY = 'surface-refusals-guest-19fe0c';
const full = { authorization: `Bearer ${FULL_KEY}` };
const guest = { authorization: `Bearer ${GUEST_KEY}` };

/** An answer this small names a few keys and a count; listing 100,000 keys takes megabytes. */
const BOUND = 4096;
const KEYS = 100_000;

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(
  (url) => `
wrap "surface-refusals" version="1.0.0"
base-url "${url}/api"
access {
    api-key env="FULL_KEYS" scopes="docs:read"
    api-key env="GUEST_KEYS" scopes="guest"
}
can get doc {
    describe "One document."
    path "/docs/{name}"
    scope "docs:read"
}
can search docs {
    describe "Documents about a topic."
    path "/search"
    query {
        topic "string" required=#true
    }
    scope "docs:read"
}
resource "docs://x/{name}" from="get_doc"
resource "docs://about/{topic}" from="search_docs"
prompt "explain" {
    argument "name" required=#true
    message "user" "Explain {name}."
    message "user" resource="docs://x/{name}"
}
prompt "greet" {
    argument "who"
    message "assistant" "Hello {who}."
}
prompt "search" {
    argument "topic" required=#true
    message "user" resource="docs://about/{topic}"
}
`,
  { env: { FULL_KEYS: FULL_KEY, GUEST_KEYS: GUEST_KEY } },
  (s) => ({ upstream, gw } = s),
);

/** An object of `n` keys k0, k1, ... beside `keep`. */
function manyKeys(n: number, keep: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...keep };
  for (let i = 0; i < n; i++) out[`k${i}`] = 'v';
  return out;
}

let nextId = 1;

/** A 2025-11-25 request (no mirrored headers, so any text may be a name or URI). */
async function rpc(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = full,
) {
  const id = nextId++;
  const r = await postJson(
    `${gw.url}/mcp`,
    { jsonrpc: '2.0', id, method, params },
    { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY, ...headers },
  );
  return {
    ...r,
    id,
    rpc: r.json as {
      id: unknown;
      error?: { code: number; message: string; data?: { code?: string; details?: unknown } };
    },
  };
}

describe('a refusal does not grow with the request', () => {
  it('names the first undeclared prompt arguments and their count over MCP, in a small answer', async () => {
    const before = upstream.requests.length;
    const r = await rpc('prompts/get', {
      name: 'explain',
      arguments: manyKeys(KEYS, { name: 'a' }),
    });
    expect(r.status).toBe(200);
    expect(r.rpc).toMatchObject({
      id: r.id,
      error: { code: -32602, data: { code: 'INVALID_ARGUMENTS' } },
    });
    expect(r.rpc.error!.message).toContain('k0 is not an argument of this prompt');
    expect(r.rpc.error!.message).toContain(`${KEYS - 20} more problems`);
    expect(Buffer.byteLength(r.text)).toBeLessThan(BOUND);
    expect(upstream.requests.length).toBe(before);
  });

  it('names the first undeclared prompt arguments and their count over REST, in a small answer', async () => {
    const r = await postJson(
      `${gw.url}/api/prompts/get`,
      { name: 'explain', arguments: manyKeys(KEYS, { name: 'a' }) },
      full,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    expect(r.text).toContain(`${KEYS - 20} more problems`);
    expect(Buffer.byteLength(r.text)).toBeLessThan(BOUND);
  });

  it.each([
    ['/api/prompts/get', { name: 'explain', arguments: { name: 'a' } }],
    ['/api/resources/read', { uri: 'docs://x/a' }],
  ])(
    'refuses undeclared body members of %s in a small answer naming their count, before the scope check',
    async (route, body) => {
      const before = upstream.requests.length;
      // The guest lacks the scope: this refusal comes first, so it must be small too.
      const r = await postJson(`${gw.url}${route}`, manyKeys(KEYS, body), guest);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
      expect(r.text).toContain('/k0');
      expect(r.text).toContain(`${KEYS - 20} more problems`);
      expect(Buffer.byteLength(r.text)).toBeLessThan(BOUND);
      expect(upstream.requests.length).toBe(before);
    },
  );

  it('refuses a long URI nothing serves, and a long prompt name, in a small answer on both surfaces', async () => {
    const long = 'x'.repeat(1_000_000);
    const answers = [
      await rpc('resources/read', { uri: `docs://nothing/${long}` }),
      await rpc('prompts/get', { name: long }),
      await postJson(`${gw.url}/api/resources/read`, { uri: `docs://nothing/${long}` }, guest),
      await postJson(`${gw.url}/api/prompts/get`, { name: long }, guest),
    ];
    for (const r of answers) {
      expect(r.text).toMatch(/RESOURCE_NOT_FOUND|UNKNOWN_PROMPT/);
      expect(Buffer.byteLength(r.text)).toBeLessThan(BOUND);
    }
  });

  it.each([
    ['resources/read', { uri: `docs://x/${'y'.repeat(1_000_000)}` }],
    ['prompts/get', { name: manyKeys(KEYS) }],
  ])(
    'refuses a 2026-07-28 %s whose Mcp-Name disagrees with a huge body value in a small answer',
    async (method, params) => {
      const r = await postJson(
        `${gw.url}/mcp`,
        {
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { ...params, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } },
        },
        {
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          'mcp-name': 'docs://x/y',
          ...full,
        },
      );
      expect(r.status).toBe(400);
      expect((r.json as { error: { code: number } }).error.code).toBe(-32020);
      expect(Buffer.byteLength(r.text)).toBeLessThan(BOUND);
    },
  );
});

describe('a lone surrogate', () => {
  it('in a prompt argument that fills a resource URI is invalid arguments naming it over MCP, with the id kept', async () => {
    const before = upstream.requests.length;
    const r = await rpc('prompts/get', { name: 'explain', arguments: { name: '\ud800' } });
    expect(r.status).toBe(200);
    expect(r.rpc).toMatchObject({
      id: r.id,
      error: {
        code: -32602,
        data: { code: 'INVALID_ARGUMENTS', details: [{ field: '/name' }] },
      },
    });
    expect(r.rpc.error!.message).toContain('name');
    expect(upstream.requests.length).toBe(before);
  });

  it('in a prompt argument that fills a resource URI is 400 invalid arguments naming it over REST', async () => {
    const before = upstream.requests.length;
    const r = await postJson(
      `${gw.url}/api/prompts/get`,
      { name: 'explain', arguments: { name: 'a\udc00b' } },
      full,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      error: { code: 'INVALID_ARGUMENTS', details: [{ field: '/name' }] },
    });
    expect(upstream.requests.length).toBe(before);
  });

  it.each([
    ['a path variable', 'docs://x/a\ud800'],
    ['a query variable', 'docs://about/\udfff'],
    ['a URI nothing serves', 'docs://\ud800/x'],
  ])(
    'in a resources/read URI (%s) is invalid arguments naming the uri, nothing called',
    async (_what, uri) => {
      const before = upstream.requests.length;
      const m = await rpc('resources/read', { uri });
      expect(m.rpc).toMatchObject({
        id: m.id,
        error: { code: -32602, data: { code: 'INVALID_ARGUMENTS', details: [{ field: '/uri' }] } },
      });
      const r = await postJson(`${gw.url}/api/resources/read`, { uri }, full);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        error: { code: 'INVALID_ARGUMENTS', details: [{ field: '/uri' }] },
      });
      expect(upstream.requests.length).toBe(before);
    },
  );

  it('in a prompt argument that fills only text is refused too, on both surfaces', async () => {
    const m = await rpc('prompts/get', { name: 'greet', arguments: { who: 'x\udbff' } });
    expect(m.rpc).toMatchObject({
      id: m.id,
      error: { code: -32602, data: { code: 'INVALID_ARGUMENTS', details: [{ field: '/who' }] } },
    });
    const r = await postJson(
      `${gw.url}/api/prompts/get`,
      { name: 'greet', arguments: { who: 'x\udbff' } },
      full,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { details: [{ field: '/who' }] } });
  });

  it('is no surrogate pair: a whole emoji fills the URI as its UTF-8 bytes', async () => {
    const r = await postJson(
      `${gw.url}/api/prompts/get`,
      { name: 'explain', arguments: { name: '\ud83d\ude00' } },
      full,
    );
    expect(r.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/api/docs/%F0%9F%98%80');
  });
});
