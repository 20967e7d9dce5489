/**
 * Issue 30's span of a call to an upstream MCP server: CLIENT `tools/call {tool}`, the
 * child of the request's server span, and the upstream (a real SDK v2 server that records
 * what it receives) gets `_meta.traceparent` naming that span. With telemetry off it
 * still gets the call's traceparent there, as an HTTP upstream gets the header.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postToolCall } from '../helpers/call-tool.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import {
  newTraceparent,
  parseTraceparent,
  recordingTelemetry,
  type RecordingTelemetry,
} from '../helpers/recording-telemetry.js';
import { searchIssuesToolGrant } from '../helpers/spec-fixtures.js';

const DISTINCT = 'zq query 5120';

const SPEC = (tracker: string): string => `
wrap "mcp-upstream-spans" version="1.0.0"
mcp-server "tracker" url="${tracker}"
${searchIssuesToolGrant({ acmeOnly: true })}
`;

let tracker: RecordingServer;
let telemetry: RecordingTelemetry;
let gw: TestGateway;
let off: TestGateway;

beforeAll(async () => {
  tracker = await startRecordingServer();
  telemetry = recordingTelemetry();
  gw = await startGateway(SPEC(tracker.url), { telemetry });
  off = await startGateway(SPEC(tracker.url));
});

afterAll(async () => {
  await gw?.close();
  await off?.close();
  await tracker?.close();
});

beforeEach(() => {
  telemetry.spans.length = 0;
  tracker.received.length = 0;
});

/** The `_meta` of the one tools/call the upstream received. */
function receivedMeta(): Record<string, unknown> {
  const calls = tracker.received.filter((r) => r.method === 'tools/call');
  expect(calls).toHaveLength(1);
  return (calls[0]!.params?._meta ?? {}) as Record<string, unknown>;
}

describe('a call to an upstream MCP server', () => {
  it('is a client span whose id the upstream receives as the parent in _meta.traceparent', async () => {
    const sent = newTraceparent();
    const res = await postToolCall(
      gw.url,
      'search_issues',
      { query: DISTINCT },
      {
        headers: { traceparent: sent.traceparent, baggage: 'tenant=acme' },
      },
    );
    expect(res.status).toBe(200);
    // The gateway's span and its upstream's share the name; their kinds differ.
    const named = telemetry.named('tools/call search_issues');
    expect(named.map((s) => s.kind).sort()).toEqual(['client', 'server']);
    const server = named.find((s) => s.kind === 'server')!;
    const upstreamSpan = named.find((s) => s.kind === 'client')!;
    expect(upstreamSpan).toMatchObject({
      name: 'tools/call search_issues',
      parentId: server.spanId,
      traceId: sent.traceId,
      ended: true,
      error: undefined,
    });
    expect(upstreamSpan.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_issues',
      'gen_ai.operation.name': 'execute_tool',
      // Which mcp-server of the spec answered, and where it listens.
      'mcp_beaver.mcp_server': 'tracker',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(tracker.url).port),
      'network.transport': 'tcp',
      'mcp_beaver.credential': 'none',
    });
    const meta = receivedMeta();
    expect(parseTraceparent(meta.traceparent)).toEqual({
      traceId: sent.traceId,
      parentId: upstreamSpan.spanId,
    });
    expect(meta.baggage).toBe('tenant=acme');
    expect(JSON.stringify(telemetry.spans)).not.toContain(DISTINCT);
  });

  it('still carries the caller’s trace in _meta.traceparent with telemetry off', async () => {
    const sent = newTraceparent();
    const res = await postToolCall(
      off.url,
      'search_issues',
      { query: DISTINCT },
      {
        era: 'legacy',
        headers: { traceparent: sent.traceparent },
      },
    );
    expect(res.status).toBe(200);
    const got = parseTraceparent(receivedMeta().traceparent)!;
    expect(got.traceId).toBe(sent.traceId);
    expect(got.parentId).not.toBe(sent.spanId);
  });
});
