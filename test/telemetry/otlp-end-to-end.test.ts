/**
 * Issue 30 end to end through the real OpenTelemetry SDK, no recording double: the
 * gateway started from OTEL_* variables exports OTLP/HTTP protobuf to a real receiver
 * (otlp-receiver.ts), and what that receiver decoded is asserted. One spec holds an HTTP
 * grant (a recording upstream), a SQL grant (the machine's Postgres) and a grant of an
 * upstream MCP server (a recording SDK v2 server); the SDK v2 client calls each with
 * `_meta.traceparent`, as an agent host does. Then the histograms the receiver got, and a
 * collector that answers 503: every call still answered, the log saying so once.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Era } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, MODERN } from '../helpers/mcp-wire.js';
import { needsDatabase } from '../helpers/needs-services.js';
import {
  KIND,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedMetric,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { createTestSchema, lockSharedPostgres, type TestSchema } from '../helpers/postgres.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import { newTraceparent, parseTraceparent } from '../helpers/recording-telemetry.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { GET_THING_GRANT, searchIssuesToolGrant, specHead } from '../helpers/spec-fixtures.js';

const STATEMENT = 'SELECT id, title FROM tickets WHERE title = $1';
/** Argument values distinctive enough that finding one anywhere in a span is a leak. */
const THING_ID = 'zq-thing-6612';
const TITLE = 'zq-title-8830';
const QUERY = 'zq query 2271';
const EVIL_OWNER = 'zq-evil-owner-3391';
const API_KEY = 'caller-key-Vb7Nq2Lx5Rt8';
const UPSTREAM_TOKEN = 'upstream-token-Hy3Kd9Wp4Zs1';

/** The MCP conventions' buckets for the operation durations, in seconds. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP conventions' buckets for http.server.request.duration, in seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const SPEC = (baseUrl: string, tracker: string): string => `
${specHead('otlp-e2e', `${baseUrl}/v1`, { bearerEnv: 'UPSTREAM_TOKEN' })}
database env="DATABASE_URL" pool=2
mcp-server "tracker" url="${tracker}"
access {
    api-key env="CALLER_KEYS" scopes="read"
}
restrict {
    owner "acme"
}
${GET_THING_GRANT}
can find tickets {
    describe "Tickets of one title."
    sql "${STATEMENT}"
    params {
        title "string" required=#true
    }
}
${searchIssuesToolGrant()}
`;

const HAS_DB = needsDatabase();

let schema: TestSchema;
let unlock: (() => Promise<void>) | undefined;
let upstream: Upstream;
let tracker: RecordingServer;

/** The environment of a gateway exporting to `receiver`, with short export delays. */
const envFor = (receiver: OtlpReceiver): Record<string, string> => ({
  DATABASE_URL: schema.url,
  UPSTREAM_TOKEN,
  CALLER_KEYS: API_KEY,
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_SERVICE_NAME: 'otlp-e2e',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_METRIC_EXPORT_INTERVAL: '500',
  // Bounds the exporter's retries of a 503, so a failing export ends soon.
  OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
});

beforeAll(async () => {
  if (!HAS_DB) return;
  unlock = await lockSharedPostgres(120_000);
  schema = await createTestSchema(
    `CREATE TABLE tickets (id integer PRIMARY KEY, title text NOT NULL);
     INSERT INTO tickets VALUES (1, '${TITLE}');`,
  );
  upstream = await startUpstream();
  tracker = await startRecordingServer();
}, 150_000);

afterAll(async () => {
  try {
    await upstream?.close();
    await tracker?.close();
    await schema?.drop();
  } finally {
    await unlock?.();
  }
});

interface CallResult {
  isError?: boolean;
  content: { type: string; text: string }[];
}

/** A tools/call with the traceparent sent, the spans of its trace and its server span. */
interface TracedCall {
  sent: ReturnType<typeof newTraceparent>;
  out: CallResult;
  spans: ReceivedSpan[];
  server: ReceivedSpan;
}

/** A tools/call by the SDK v2 client in `era`, `_meta.traceparent` in its params. */
async function sdkCall(
  gw: TestGateway,
  era: Era,
  tool: string,
  args: Record<string, unknown>,
  traceparent: string,
): Promise<CallResult> {
  const client = new Client(
    { name: 'otlp-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${API_KEY}` } },
    }),
  );
  try {
    return (await client.callTool({
      name: tool,
      arguments: args,
      _meta: { traceparent },
    })) as CallResult;
  } finally {
    await client.close();
  }
}

/** One call of each backend kind, in the 2026-07-28 era; their results. */
async function callEach(gw: TestGateway): Promise<CallResult[]> {
  return [
    await sdkCall(
      gw,
      'modern',
      'get_thing',
      { owner: 'acme', id: THING_ID },
      newTraceparent().traceparent,
    ),
    await sdkCall(gw, 'modern', 'find_tickets', { title: TITLE }, newTraceparent().traceparent),
    await sdkCall(gw, 'modern', 'search_issues', { query: QUERY }, newTraceparent().traceparent),
  ];
}

const KIND_NAMES: Readonly<Record<number, string>> = { 1: 'internal', 2: 'server', 3: 'client' };
const SHOWN = [
  'mcp.method.name',
  'mcp.protocol.version',
  'gen_ai.tool.name',
  'mcp_beaver.grant',
  'mcp_beaver.refused_by',
  'error.type',
  'http.route',
  'http.response.status_code',
  'url.template',
  'db.system.name',
  'db.operation.name',
  'db.query.text',
];

/** The spans of one trace as an indented tree: `name [kind] key=value …`. */
function renderTree(spans: readonly ReceivedSpan[], traceId: string): string {
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const ids = new Set(inTrace.map((s) => s.spanId));
  const lines: string[] = [];
  const render = (span: ReceivedSpan, depth: number): void => {
    const attrs = SHOWN.filter((k) => span.attributes[k] !== undefined)
      .map((k) => `${k}=${JSON.stringify(span.attributes[k])}`)
      .join(' ');
    lines.push(`${'  '.repeat(depth)}${span.name} [${KIND_NAMES[span.kind]}] ${attrs}`);
    for (const child of inTrace.filter((s) => s.parentSpanId === span.spanId))
      render(child, depth + 1);
  };
  for (const root of inTrace.filter((s) => !ids.has(s.parentSpanId))) {
    lines.push(`(caller ${root.parentSpanId || 'none'})`);
    render(root, 1);
  }
  return lines.join('\n');
}

describe('spans exported over OTLP by the real SDK', () => {
  let receiver: OtlpReceiver;
  let gw: TestGateway;
  const trees: string[] = [];

  beforeAll(async () => {
    if (!HAS_DB) return;
    receiver = await startOtlpReceiver();
    gw = await startGateway(SPEC(upstream.url, tracker.url), { env: envFor(receiver) });
  });

  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
    if (trees.length > 0)
      console.log(`span trees as the OTLP receiver decoded them\n\n${trees.join('\n\n')}`);
  });

  /** The spans of the trace `traceId` once its server span and `clients` client spans arrived. */
  async function trace(traceId: string, clients: number): Promise<ReceivedSpan[]> {
    const of = (spans: readonly ReceivedSpan[]): ReceivedSpan[] =>
      spans.filter((s) => s.traceId === traceId);
    await receiver.waitForSpans((spans) => {
      const mine = of(spans);
      return (
        mine.some((s) => s.kind === KIND.server) &&
        mine.filter((s) => s.kind === KIND.client).length >= clients
      );
    });
    return of(receiver.spans);
  }

  /** The server span of a tools/call: its parent the one sent, with the MCP attributes. */
  function serverSpanOf(
    spans: readonly ReceivedSpan[],
    tool: string,
    sent: { traceId: string; spanId: string },
    version: string,
  ): ReceivedSpan {
    const servers = spans.filter((s) => s.kind === KIND.server);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(server).toMatchObject({
      name: `tools/call ${tool}`,
      traceId: sent.traceId,
      parentSpanId: sent.spanId,
      resource: { 'service.name': 'otlp-e2e' },
    });
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': version,
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
      'mcp_beaver.grant': tool,
    });
    expect(server.attributes['jsonrpc.request.id']).toBeDefined();
    expect(server.attributes).not.toHaveProperty('mcp.session.id');
    return server;
  }

  /** The one client span of `spans`, the child of `server`. */
  function clientSpanOf(spans: readonly ReceivedSpan[], server: ReceivedSpan): ReceivedSpan {
    const clients = spans.filter((s) => s.kind === KIND.client);
    expect(clients).toHaveLength(1);
    expect(clients[0]!.parentSpanId).toBe(server.spanId);
    return clients[0]!;
  }

  /**
   * A tools/call in `era` with a fresh traceparent, answered or `refused` as said; the
   * spans of its trace (a client span unless refused) and its checked server span.
   */
  async function tracedCall(
    era: Era,
    tool: string,
    args: Record<string, unknown>,
    refused = false,
  ): Promise<TracedCall> {
    const sent = newTraceparent();
    const out = await sdkCall(gw, era, tool, args, sent.traceparent);
    expect(out.isError).toBe(refused);
    const spans = await trace(sent.traceId, refused ? 0 : 1);
    const server = serverSpanOf(spans, tool, sent, era === 'modern' ? MODERN : LEGACY);
    return { sent, out, spans, server };
  }

  it('makes an HTTP grant’s call a server span with a client child whose id the upstream gets as parent', async () => {
    upstream.requests.length = 0;
    const { sent, spans, server } = await tracedCall('modern', 'get_thing', {
      owner: 'acme',
      id: THING_ID,
    });
    expect(server.status.code).not.toBe(2);
    expect(server.attributes['mcp_beaver.coverage.truncated']).toBe(false);
    expect(typeof server.attributes['mcp_beaver.coverage.bytes']).toBe('number');
    const client = clientSpanOf(spans, server);
    expect(client.name).toBe('GET /owners/{owner}/things/{id}');
    expect(client.attributes).toEqual({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(upstream.url).port),
      'url.template': `${upstream.url}/v1/owners/{owner}/things/{id}`,
      'mcp_beaver.credential': 'service',
    });
    expect(client.attributes).not.toHaveProperty('url.full');
    const call = upstream.requests.find((r) => r.path.includes(THING_ID))!;
    expect(parseTraceparent(call.headers.traceparent)).toEqual({
      traceId: sent.traceId,
      parentId: client.spanId,
    });
    trees.push(`HTTP grant (2026-07-28)\n${renderTree(receiver.spans, sent.traceId)}`);
  });

  it('makes a SQL grant’s call a server span with the statement’s client child', async () => {
    const { sent, out, spans, server } = await tracedCall('modern', 'find_tickets', {
      title: TITLE,
    });
    expect(out.content[0]!.text).toContain(TITLE);
    const client = clientSpanOf(spans, server);
    expect(client.name).toBe('SELECT tickets');
    expect(client.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.summary': 'SELECT tickets',
      'db.collection.name': 'tickets',
      'db.query.text': STATEMENT,
      'mcp_beaver.grant': 'find_tickets',
      'mcp_beaver.credential': 'service',
    });
    trees.push(`SQL grant (2026-07-28)\n${renderTree(receiver.spans, sent.traceId)}`);
  });

  it('makes an upstream MCP grant’s call a server span with a tools/call client child the upstream gets in _meta.traceparent', async () => {
    tracker.received.length = 0;
    const { sent, spans, server } = await tracedCall('modern', 'search_issues', {
      query: QUERY,
    });
    const client = clientSpanOf(spans, server);
    expect(client.name).toBe('tools/call search_issues');
    expect(client.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_issues',
      'mcp_beaver.mcp_server': 'tracker',
      'server.port': Number(new URL(tracker.url).port),
    });
    const calls = tracker.received.filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(1);
    const meta = (calls[0]!.params?._meta ?? {}) as Record<string, unknown>;
    expect(parseTraceparent(meta.traceparent)).toEqual({
      traceId: sent.traceId,
      parentId: client.spanId,
    });
    trees.push(`upstream MCP grant (2026-07-28)\n${renderTree(receiver.spans, sent.traceId)}`);
  });

  it('takes the parent from _meta.traceparent in the 2025 era too', async () => {
    const { sent, spans, server } = await tracedCall('legacy', 'get_thing', {
      owner: 'acme',
      id: THING_ID,
    });
    clientSpanOf(spans, server);
    trees.push(`HTTP grant (2025-11-25)\n${renderTree(receiver.spans, sent.traceId)}`);
  });

  it.each([
    ['restrict', 'get_thing', { owner: EVIL_OWNER, id: THING_ID }, 'DENIED_BY_RESTRICT'],
    ['validate', 'search_issues', { query: 'x'.repeat(101) }, undefined],
  ] as const)(
    'marks a call %s refuses with error.type and the guard, and makes no client span',
    async (guard, tool, args, code) => {
      const { sent, spans, server } = await tracedCall('modern', tool, args, true);
      expect(server.status.code).toBe(2);
      expect(server.attributes['mcp_beaver.refused_by']).toBe(guard);
      expect(typeof server.attributes['error.type']).toBe('string');
      if (code) expect(server.attributes['error.type']).toBe(code);
      expect(spans.filter((s) => s.kind === KIND.client)).toEqual([]);
      if (guard === 'restrict')
        trees.push(`refused by restrict\n${renderTree(receiver.spans, sent.traceId)}`);
    },
  );

  it('makes a REST call a server span of the route with the HTTP attributes', async () => {
    const sent = newTraceparent();
    const res = await postJson(
      `${gw.url}/api/get_thing`,
      { owner: 'acme', id: THING_ID },
      { traceparent: sent.traceparent, authorization: `Bearer ${API_KEY}` },
    );
    expect(res.status).toBe(200);
    const spans = await trace(sent.traceId, 1);
    const server = spans.find((s) => s.kind === KIND.server)!;
    expect(server).toMatchObject({ name: 'POST /api/{tool}', parentSpanId: sent.spanId });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'http.route': '/api/{tool}',
      'gen_ai.tool.name': 'get_thing',
    });
    clientSpanOf(spans, server);
    trees.push(`REST call\n${renderTree(receiver.spans, sent.traceId)}`);
  });

  it('puts no argument value and no credential in any exported span', async () => {
    await callEach(gw);
    await receiver.waitForSpans((spans) => spans.some((s) => s.name === 'SELECT tickets'));
    const all = JSON.stringify(receiver.spans);
    expect(receiver.spans.length).toBeGreaterThan(5);
    for (const secret of [THING_ID, TITLE, QUERY, EVIL_OWNER, API_KEY, UPSTREAM_TOKEN])
      expect(all).not.toContain(secret);
  });
});

describe('metrics exported over OTLP by the real SDK', () => {
  let receiver: OtlpReceiver;
  let gw: TestGateway;

  beforeAll(async () => {
    if (!HAS_DB) return;
    receiver = await startOtlpReceiver();
    gw = await startGateway(SPEC(upstream.url, tracker.url), { env: envFor(receiver) });
  });

  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
  });

  const pointsOf = (metrics: readonly ReceivedMetric[], name: string) =>
    metrics.filter((m) => m.name === name).flatMap((m) => m.points);

  it('sends the operation histograms with the conventions’ attributes and buckets', async () => {
    const results = await callEach(gw);
    expect(results.map((r) => r.isError)).toEqual([false, false, false]);
    const rest = await postJson(
      `${gw.url}/api/find_tickets`,
      { title: TITLE },
      { authorization: `Bearer ${API_KEY}` },
    );
    expect(rest.status).toBe(200);

    const served = (metrics: readonly ReceivedMetric[], tool: string) =>
      pointsOf(metrics, 'mcp.server.operation.duration').find(
        (p) =>
          p.attributes['mcp.method.name'] === 'tools/call' &&
          p.attributes['gen_ai.tool.name'] === tool,
      );
    const metrics = await receiver.waitForMetrics(
      (m) =>
        ['get_thing', 'find_tickets', 'search_issues'].every((tool) => served(m, tool)) &&
        pointsOf(m, 'http.server.request.duration').length > 0 &&
        pointsOf(m, 'mcp.client.operation.duration').length > 0,
    );
    for (const tool of ['get_thing', 'find_tickets', 'search_issues']) {
      const point = served(metrics, tool)!;
      expect(point.attributes['mcp.protocol.version']).toBe(MODERN);
      expect(point.bounds).toEqual(BUCKETS);
    }
    // Labelled by route, not by tool: one series for every tool (the contract's "Metrics").
    const restPoint = pointsOf(metrics, 'http.server.request.duration')[0]!;
    expect(restPoint.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/{tool}',
      'http.response.status_code': 200,
    });
    expect(restPoint.bounds).toEqual(HTTP_BUCKETS);
    const upstreamPoint = pointsOf(metrics, 'mcp.client.operation.duration')[0]!;
    expect(upstreamPoint.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_issues',
    });
    expect(upstreamPoint.bounds).toEqual(BUCKETS);
  });
});

describe('a collector that is down', () => {
  let receiver: OtlpReceiver;
  let gw: TestGateway;

  beforeAll(async () => {
    if (!HAS_DB) return;
    receiver = await startOtlpReceiver();
    receiver.failing(true);
    gw = await startGateway(SPEC(upstream.url, tracker.url), { env: envFor(receiver) });
  });

  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
  });

  const count = (text: string, what: string): number => text.split(what).length - 1;
  /** A bounded wait for `check`, for arrivals only: its time is not asserted. */
  async function until(check: () => boolean, what: () => string): Promise<void> {
    const deadline = Date.now() + 12_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const exportsTo = (path: string): number =>
    receiver.requests.filter((r) => r.path === path).length;

  it('costs no call, and the log says so once per signal, not once per export', async () => {
    const first = await callEach(gw);
    expect(first.map((r) => r.isError)).toEqual([false, false, false]);
    expect(first[1]!.content[0]!.text).toContain(TITLE);
    await until(
      () =>
        gw.logs().includes('OTLP traces export failing') &&
        gw.logs().includes('OTLP metrics export failing'),
      () => `no "export failing" lines in:\n${gw.logs()}`,
    );
    // More exports fail after the lines were written: two more rounds of calls, each
    // waited for until its spans' export was tried, and two more metric intervals.
    const metrics = exportsTo('/v1/metrics');
    for (let round = 0; round < 2; round++) {
      const traces = exportsTo('/v1/traces');
      const results = await callEach(gw);
      expect(results.map((r) => r.isError)).toEqual([false, false, false]);
      await until(
        () => exportsTo('/v1/traces') > traces,
        () => `no trace export tried after round ${round}`,
      );
    }
    await until(
      () => exportsTo('/v1/metrics') >= metrics + 2,
      () => 'no further metric exports tried',
    );
    expect(count(gw.logs(), 'OTLP traces export failing')).toBe(1);
    expect(count(gw.logs(), 'OTLP metrics export failing')).toBe(1);
    expect(receiver.spans).toEqual([]);
  });
});
