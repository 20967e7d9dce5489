/**
 * A 2026-07-28 upstream written here with the official SDK v2 server package
 * (`createMcpHandler`, stateless, on node:http), recording what it received: the
 * connection layer calls it statelessly, with `_meta` on every request and the mirrored
 * `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers, and only the credential it
 * was given. The same handler also serves 2025-era requests statelessly, which a pinned
 * `protocol "2025-11-25"` uses.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { dirname } from 'node:path';
import { MODERN_STDIO, NODE, open } from './upstream-helpers.js';
import { answerWithFetchHandler } from '../helpers/fetch-handler-bridge.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: { method?: string; params?: Record<string, unknown> };
}

const received: Received[] = [];

function factory(): McpServer {
  const server = new McpServer({ name: 'modern-upstream', version: '1.0.0' });
  const object = (properties: Record<string, { type: string }>) =>
    fromJsonSchema({ type: 'object', properties } as Parameters<typeof fromJsonSchema>[0]);
  server.registerTool(
    'search_issues',
    {
      description: 'Search issues.',
      inputSchema: object({ query: { type: 'string' }, owner: { type: 'string' } }),
    },
    async (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
      structuredContent: { received: args },
    }),
  );
  server.registerTool(
    'plain',
    { description: 'Two text blocks.', inputSchema: object({}) },
    async () => ({
      content: [
        { type: 'text', text: 'line one' },
        { type: 'text', text: 'line two' },
      ],
    }),
  );
  server.registerTool(
    'json-text',
    { description: 'JSON as text.', inputSchema: object({}) },
    async () => ({ content: [{ type: 'text', text: '{"count":3,"items":[1,2,3]}' }] }),
  );
  server.registerTool('broken', { description: 'Fails.', inputSchema: object({}) }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the tracker is read-only today' }],
  }));
  server.registerTool(
    'slow',
    { description: 'Sleeps.', inputSchema: object({ ms: { type: 'number' } }) },
    async (args) => {
      await new Promise((r) => setTimeout(r, (args as { ms: number }).ms));
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  server.registerTool(
    'ask',
    { description: 'Needs input.', inputSchema: object({}) },
    async () =>
      ({
        resultType: 'input_required',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Really?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            },
          },
        },
      }) as never,
  );
  return server;
}

async function serve(mode: 'json' | 'sse'): Promise<{ server: Server; url: URL }> {
  const handler = createMcpHandler(factory, { responseMode: mode });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    try {
      received.push({ headers: req.headers, body: JSON.parse(raw.toString('utf8')) });
    } catch {
      received.push({ headers: req.headers, body: {} });
    }
    await answerWithFetchHandler(handler, req, res, raw);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { server, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

let json: { server: Server; url: URL };
let sse: { server: Server; url: URL };
const upstreams: McpUpstream[] = [];

beforeAll(async () => {
  json = await serve('json');
  sse = await serve('sse');
});
afterEach(() => {
  received.length = 0;
});
afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.close()));
  await new Promise((r) => json.server.close(r));
  await new Promise((r) => sse.server.close(r));
});

function upstreamAt(url: URL, protocol?: 'auto' | '2026-07-28' | '2025-11-25'): McpUpstream {
  const { upstream } = open({
    name: 'tracker',
    transport: {
      kind: 'url',
      url,
      headers: { Authorization: 'Bearer gateway-own-token', 'X-Team': 'triage' },
    },
    ...(protocol && { protocol }),
  });
  upstreams.push(upstream);
  return upstream;
}

describe('a 2026-07-28 upstream written with the SDK v2', () => {
  it('is found modern by server/discover under protocol "auto", and called statelessly', async () => {
    const u = upstreamAt(json.url);
    const hs = await u.connect();
    expect(hs).toMatchObject({ ok: true, value: { era: 'modern', protocolVersion: '2026-07-28' } });
    expect(received.map((r) => r.body.method)).toEqual(['server/discover']);
    const out = await u.callTool('search_issues', { query: 'crash', owner: 'acme' });
    expect(out).toEqual({ ok: true, value: { received: { query: 'crash', owner: 'acme' } } });
    const call = received.at(-1)!;
    expect(call.body.method).toBe('tools/call');
    expect(call.body.params).toMatchObject({
      name: 'search_issues',
      arguments: { query: 'crash', owner: 'acme' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'mcp-beaver' },
      },
    });
    expect(call.headers).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'search_issues',
      authorization: 'Bearer gateway-own-token',
      'x-team': 'triage',
    });
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(received.some((r) => r.body.method === 'initialize')).toBe(false);
  });

  it('answers in a single SSE event just as in JSON', async () => {
    const u = upstreamAt(sse.url, '2026-07-28');
    expect(await u.callTool('search_issues', { query: 'sse' })).toEqual({
      ok: true,
      value: { received: { query: 'sse' } },
    });
  });

  it('maps text results: one JSON text parsed, several texts joined by a newline', async () => {
    const u = upstreamAt(json.url, '2026-07-28');
    expect(await u.callTool('json-text', {})).toEqual({
      ok: true,
      value: { count: 3, items: [1, 2, 3] },
    });
    expect(await u.callTool('plain', {})).toEqual({ ok: true, value: 'line one\nline two' });
  });

  it('an isError result is a tool error, an unknown tool a JSON-RPC error', async () => {
    const u = upstreamAt(json.url, '2026-07-28');
    expect(await u.callTool('broken', {})).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: 'the tracker is read-only today' },
    });
    expect(await u.callTool('no-such-tool', {})).toEqual({
      ok: false,
      error: { kind: 'rpc-error', code: -32602, message: 'Tool no-such-tool not found' },
    });
  });

  it('a tool that would ask for input is refused by the SDK itself: the gateway declares no capabilities', async () => {
    const u = upstreamAt(json.url, '2026-07-28');
    expect(await u.callTool('ask', {})).toMatchObject({
      ok: false,
      error: { kind: 'rpc-error', code: -32021 },
    });
  });

  it('a call past its deadline is a timeout', async () => {
    const u = upstreamAt(json.url, '2026-07-28');
    await u.connect();
    expect(await u.callTool('slow', { ms: 1_000 }, { timeoutMs: 200 })).toMatchObject({
      ok: false,
      error: {
        kind: 'timeout',
        message: 'mcp-server tracker: no answer to tools/call within 200 ms',
      },
    });
  });

  it('lists its tools with their schemas', async () => {
    const u = upstreamAt(json.url);
    const out = await u.listTools();
    expect(out.ok && out.value.map((t) => t.name)).toEqual([
      'search_issues',
      'plain',
      'json-text',
      'broken',
      'slow',
      'ask',
    ]);
    expect(out.ok && out.value[0]!.inputSchema).toMatchObject({
      properties: { query: { type: 'string' } },
    });
  });

  it('pinned to 2025-11-25, it is initialized and called without _meta', async () => {
    const u = upstreamAt(json.url, '2025-11-25');
    expect(await u.connect()).toMatchObject({ ok: true, value: { era: 'legacy' } });
    expect(received.map((r) => r.body.method)).toEqual(['initialize', 'notifications/initialized']);
    expect(await u.callTool('search_issues', { query: 'old' })).toEqual({
      ok: true,
      value: { received: { query: 'old' } },
    });
    const call = received.at(-1)!;
    expect(call.body.params?._meta).toBeUndefined();
    expect(call.headers['mcp-method']).toBeUndefined();
    expect(call.headers['mcp-protocol-version']).toBe(
      (u.handshake()?.result as { protocolVersion: string }).protocolVersion,
    );
  });
});

describe('a 2026-07-28 stdio upstream written with the SDK v2', () => {
  it('is found modern by server/discover and called with _meta, 2025 being refused by it', async () => {
    const { upstream } = open({
      name: 'modern-stdio',
      transport: {
        kind: 'command',
        program: NODE,
        args: [MODERN_STDIO],
        cwd: dirname(MODERN_STDIO),
        env: {},
      },
    });
    upstreams.push(upstream);
    expect(await upstream.connect()).toMatchObject({
      ok: true,
      value: { era: 'modern', protocolVersion: '2026-07-28' },
    });
    expect(await upstream.callTool('echo', { message: 'over stdio' })).toEqual({
      ok: true,
      value: { received: { message: 'over stdio' } },
    });
    const listed = await upstream.listTools();
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual(['echo']);
  });
});
