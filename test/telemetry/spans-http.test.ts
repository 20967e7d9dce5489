/**
 * Issue 30's spans end to end over an HTTP grant: the real gateway with a recording
 * telemetry (our seam, recording-telemetry.ts), a real upstream that records the
 * traceparent it receives, and the SDK v2 client sending `_meta.traceparent` in both
 * eras, as an agent host does. With telemetry off the upstream still gets the
 * traceparent header it always got.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postToolCall, type Era } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, MODERN } from '../helpers/mcp-wire.js';
import {
  newTraceparent,
  parseTraceparent,
  recordingTelemetry,
  type RecordingTelemetry,
} from '../helpers/recording-telemetry.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { GET_THING_GRANT } from '../helpers/spec-fixtures.js';

/** An argument value distinctive enough that finding it anywhere in a span is a leak. */
const DISTINCT = 'zq-distinct-7731';

const SPEC = (baseUrl: string): string => `
wrap "telemetry-spans" version="1.0.0"
base-url "${baseUrl}/v1"
restrict {
    owner "acme"
}
${GET_THING_GRANT}
toolset "things" {
    tools "get_thing"
}
`;

let upstream: Upstream;
let telemetry: RecordingTelemetry;
let gw: TestGateway;
let off: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  telemetry = recordingTelemetry();
  gw = await startGateway(SPEC(upstream.url), { telemetry });
  off = await startGateway(SPEC(upstream.url));
});

afterAll(async () => {
  await gw?.close();
  await off?.close();
  await upstream?.close();
});

beforeEach(() => {
  telemetry.spans.length = 0;
  upstream.requests.length = 0;
});

/** A tools/call by the SDK v2 client in `era`, with `_meta.traceparent` in its params. */
async function sdkCall(
  era: Era,
  args: Record<string, unknown>,
  traceparent: string,
): Promise<{ isError?: boolean }> {
  const client = new Client(
    { name: 'telemetry-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  try {
    return (await client.callTool({
      name: 'get_thing',
      arguments: args,
      _meta: { traceparent, tracestate: 'host=abc' },
    })) as { isError?: boolean };
  } finally {
    await client.close();
  }
}

describe.each(['modern', 'legacy'] as const)('a tools/call in the %s era', (era) => {
  it('is one server span, the direct child of the _meta.traceparent sent, with the MCP attributes', async () => {
    const sent = newTraceparent();
    const out = await sdkCall(era, { owner: 'acme', id: DISTINCT }, sent.traceparent);
    expect(out.isError).toBe(false);
    const server = telemetry.one('tools/call get_thing');
    expect(server).toMatchObject({
      kind: 'server',
      traceId: sent.traceId,
      parentId: sent.spanId,
      tracestate: 'host=abc',
      error: undefined,
      ended: true,
    });
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': era === 'modern' ? MODERN : LEGACY,
      'gen_ai.tool.name': 'get_thing',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
      'mcp_beaver.grant': 'get_thing',
      'mcp_beaver.coverage.truncated': false,
    });
    expect(typeof server.attributes['jsonrpc.request.id']).toBe('string');
    expect(typeof server.attributes['mcp_beaver.coverage.bytes']).toBe('number');
  });

  it('makes the upstream request a client span whose id is the parent in the traceparent the upstream got', async () => {
    const sent = newTraceparent();
    await sdkCall(era, { owner: 'acme', id: DISTINCT }, sent.traceparent);
    const server = telemetry.one('tools/call get_thing');
    const client = telemetry.one('GET /owners/{owner}/things/{id}');
    expect(client).toMatchObject({ kind: 'client', parentId: server.spanId, ended: true });
    expect(client.attributes).toEqual({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(upstream.url).port),
      'url.template': `${upstream.url}/v1/owners/{owner}/things/{id}`,
      'mcp_beaver.credential': 'none',
    });
    const call = upstream.requests.find((r) => r.path.includes(DISTINCT))!;
    expect(parseTraceparent(call.headers.traceparent)).toEqual({
      traceId: sent.traceId,
      parentId: client.spanId,
    });
    expect(call.headers.tracestate).toBe('host=abc');
  });

  it('puts no argument value in any span', async () => {
    await sdkCall(era, { owner: 'acme', id: DISTINCT }, newTraceparent().traceparent);
    expect(telemetry.spans.length).toBeGreaterThan(1);
    expect(JSON.stringify(telemetry.spans)).not.toContain(DISTINCT);
  });

  it('fails the span with the catalogue code and the guard when restrict refuses the call', async () => {
    const out = await sdkCall(era, { owner: 'evil', id: DISTINCT }, newTraceparent().traceparent);
    expect(out.isError).toBe(true);
    const server = telemetry.one('tools/call get_thing');
    expect(server.error).toBe('DENIED_BY_RESTRICT');
    expect(server.attributes).toMatchObject({
      'error.type': 'DENIED_BY_RESTRICT',
      'mcp_beaver.refused_by': 'restrict',
      'mcp_beaver.grant': 'get_thing',
    });
    // Nothing left the gateway, so there is no client span.
    expect(telemetry.spans.filter((s) => s.kind === 'client')).toEqual([]);
    expect(upstream.requests).toEqual([]);
    expect(JSON.stringify(telemetry.spans)).not.toContain('evil');
  });
});

describe('other MCP requests', () => {
  it('names a tools/list span after the method alone, a child of the traceparent header', async () => {
    const sent = newTraceparent();
    const res = await postJson(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { accept: 'application/json', 'mcp-protocol-version': LEGACY, traceparent: sent.traceparent },
    );
    expect(res.status).toBe(200);
    const span = telemetry.one('tools/list');
    expect(span).toMatchObject({ parentId: sent.spanId, traceId: sent.traceId, error: undefined });
    expect(span.attributes['jsonrpc.request.id']).toBe('7');
    expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
  });

  it('names the toolset of a request to its URL, and none on /mcp', async () => {
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    const headers = { accept: 'application/json', 'mcp-protocol-version': LEGACY };
    expect((await postJson(`${gw.url}/mcp/things`, list, headers)).status).toBe(200);
    expect(telemetry.one('tools/list').attributes['mcp_beaver.toolset']).toBe('things');
    telemetry.spans.length = 0;
    expect((await postJson(`${gw.url}/mcp`, list, headers)).status).toBe(200);
    expect(telemetry.one('tools/list').attributes['mcp_beaver.toolset']).toBeUndefined();
  });

  it('fails the span of a JSON-RPC error with its code, naming no tool the spec lacks', async () => {
    const res = await postToolCall(gw.url, 'no_such_tool', {}, { era: 'legacy' });
    expect((res.json as { error?: unknown }).error).toBeDefined();
    const span = telemetry.one('tools/call');
    expect(span.error).toBe('UNKNOWN_TOOL');
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.name');
  });

  it('prefers _meta.traceparent to the header', async () => {
    const inMeta = newTraceparent();
    const inHeader = newTraceparent();
    await postJson(
      `${gw.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'get_thing',
          arguments: { owner: 'acme', id: 'x' },
          _meta: { traceparent: inMeta.traceparent },
        },
      },
      { accept: 'application/json', traceparent: inHeader.traceparent },
    );
    expect(telemetry.one('tools/call get_thing').parentId).toBe(inMeta.spanId);
  });
});

describe('a REST call', () => {
  it('is a server span named after the route, the child of the traceparent header', async () => {
    const sent = newTraceparent();
    const res = await postJson(
      `${gw.url}/api/get_thing`,
      { owner: 'acme', id: DISTINCT },
      { traceparent: sent.traceparent },
    );
    expect(res.status).toBe(200);
    const span = telemetry.one('POST /api/{tool}');
    expect(span).toMatchObject({ kind: 'server', parentId: sent.spanId, traceId: sent.traceId });
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/{tool}',
      'http.response.status_code': 200,
      'gen_ai.tool.name': 'get_thing',
      'mcp_beaver.grant': 'get_thing',
    });
    const client = telemetry.one('GET /owners/{owner}/things/{id}');
    expect(client.parentId).toBe(span.spanId);
    expect(JSON.stringify(telemetry.spans)).not.toContain(DISTINCT);
  });

  it('answers a refusal with its status and the catalogue code', async () => {
    const res = await postJson(`${gw.url}/api/get_thing`, { owner: 'evil', id: 'x' });
    expect(res.status).toBe(403);
    const span = telemetry.one('POST /api/{tool}');
    expect(span.error).toBe('DENIED_BY_RESTRICT');
    expect(span.attributes['http.response.status_code']).toBe(403);
    expect(span.attributes['mcp_beaver.refused_by']).toBe('restrict');
  });
});

describe('with telemetry off', () => {
  it('still sends the upstream a traceparent of the caller’s trace, and passes baggage on', async () => {
    const sent = newTraceparent();
    await postToolCall(
      off.url,
      'get_thing',
      { owner: 'acme', id: DISTINCT },
      {
        era: 'legacy',
        headers: { traceparent: sent.traceparent, baggage: 'tenant=acme' },
      },
    );
    const call = upstream.requests.find((r) => r.path.includes(DISTINCT))!;
    const got = parseTraceparent(call.headers.traceparent)!;
    expect(got.traceId).toBe(sent.traceId);
    expect(got.parentId).not.toBe(sent.spanId);
    expect(call.headers.baggage).toBe('tenant=acme');
    expect(call.headers.tracestate).toBeUndefined();
  });
});
