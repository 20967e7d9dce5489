import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Era } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, MODERN } from '../helpers/mcp-wire.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

function spec(upstream: string, tracker: string): string {
  return `
wrap "metered" version="1.0.0"
base-url "${upstream}/v1"
mcp-server "tracker" url="${tracker}"
can list things {
    describe "List things."
    path "/things"
    query {
        size "integer" min=0 max=10 default=3
    }
}
can search issues {
    describe "Search the tracker's issues."
    tool "tracker" "search_issues"
    args {
        query "string"
    }
}
can get broken {
    describe "A tracker tool that fails."
    tool "tracker" "broken"
}
`;
}

let upstream: Upstream;
let tracker: RecordingServer;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ id: 1 }]));
  });
  tracker = await startRecordingServer();
  gw = await startGateway(spec(upstream.url, tracker.url));
});

afterAll(async () => {
  await gw?.close();
  await tracker?.close();
  await upstream?.close();
});

/** The value of the one sample of `name` whose labels are exactly `labels` (besides `le`). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    // The last brace closes the labels: `http_route="/api/{tool}"` holds one of its own.
    const close = line.lastIndexOf('}');
    const inside = line.slice(name.length + 1, close);
    if (inside.split(',').sort().join(',') === want) return Number(line.slice(close + 1));
  }
  return undefined;
}

async function scrape(): Promise<string> {
  const res = await fetch(`${gw.url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

async function listTools(era: Era): Promise<void> {
  const client = new Client(
    { name: 'mcp-beaver-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  try {
    await client.listTools();
  } finally {
    await client.close();
  }
}

const SERVER = 'mcp_server_operation_duration_seconds';

describe('the operation histograms on /metrics', () => {
  it('count each tools/call by tool, protocol version and, for a refusal, its catalogue code', async () => {
    expect((await callTool(gw.url, 'list_things', { size: 2 })).isError).toBe(false);
    expect((await callTool(gw.url, 'list_things', {}, { era: 'legacy' })).isError).toBe(false);
    // Over the declared maximum: an isError result the model can act on.
    expect((await callTool(gw.url, 'list_things', { size: 99 })).isError).toBe(true);
    const text = await scrape();
    const ok = { mcp_method_name: 'tools/call', gen_ai_tool_name: 'list_things' };
    expect(sample(text, `${SERVER}_count`, { ...ok, mcp_protocol_version: MODERN })).toBe(1);
    expect(sample(text, `${SERVER}_count`, { ...ok, mcp_protocol_version: LEGACY })).toBe(1);
    const refused = { ...ok, error_type: 'INVALID_ARGUMENTS', mcp_protocol_version: MODERN };
    expect(sample(text, `${SERVER}_count`, refused)).toBe(1);
    // The conventions' buckets, every one written, +Inf holding the whole count.
    for (const le of [
      '0.01',
      '0.02',
      '0.05',
      '0.1',
      '0.2',
      '0.5',
      '1',
      '2',
      '5',
      '10',
      '30',
      '60',
      '120',
      '300',
    ])
      expect(sample(text, `${SERVER}_bucket`, { ...refused, le })).toBeDefined();
    expect(sample(text, `${SERVER}_bucket`, { ...refused, le: '+Inf' })).toBe(1);
    // The legacy handshake's initialize is an operation too; its notification (202) is not.
    expect(
      sample(text, `${SERVER}_count`, {
        mcp_method_name: 'initialize',
        mcp_protocol_version: LEGACY,
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/mcp_method_name="notifications\//);
  });

  it('count tools/list in both eras, without a tool or an error label', async () => {
    await listTools('modern');
    await listTools('legacy');
    const text = await scrape();
    for (const version of [MODERN, LEGACY])
      expect(
        sample(text, `${SERVER}_count`, {
          mcp_method_name: 'tools/list',
          mcp_protocol_version: version,
        }),
      ).toBeGreaterThanOrEqual(1);
  });

  it('count an unknown method as other, with its protocol error code, and an unknown tool without its name', async () => {
    const rpc = (method: string, params: unknown) =>
      postJson(
        `${gw.url}/mcp`,
        { jsonrpc: '2.0', id: 7, method, params },
        { accept: 'application/json' },
      );
    expect((await rpc('invented/by-caller', {})).status).toBe(200);
    expect(
      (await rpc('tools/call', { name: 'no_such_grant_Qx81', arguments: {} })).status,
    ).toBeGreaterThanOrEqual(200);
    const text = await scrape();
    expect(
      sample(text, `${SERVER}_count`, { mcp_method_name: 'other', error_type: 'METHOD_NOT_FOUND' }),
    ).toBe(1);
    expect(
      sample(text, `${SERVER}_count`, {
        mcp_method_name: 'tools/call',
        error_type: 'UNKNOWN_TOOL',
      }),
    ).toBe(1);
    expect(text).not.toContain('invented/by-caller');
    expect(text).not.toContain('no_such_grant_Qx81');
  });

  it('count REST calls by route template and status, and upstream MCP calls by server and tool', async () => {
    expect((await postJson(`${gw.url}/api/list_things`, {})).status).toBe(200);
    expect((await postJson(`${gw.url}/api/list_things`, { size: 99 })).status).toBe(400);
    expect((await postJson(`${gw.url}/api/search_issues`, { query: 'open' })).status).toBe(200);
    expect((await callTool(gw.url, 'get_broken')).isError).toBe(true);
    const text = await scrape();
    const rest = { http_request_method: 'POST', http_route: '/api/{tool}' };
    const HTTP = 'http_server_request_duration_seconds';
    expect(sample(text, `${HTTP}_count`, { ...rest, http_response_status_code: '200' })).toBe(2);
    expect(
      sample(text, `${HTTP}_count`, {
        ...rest,
        http_response_status_code: '400',
        error_type: 'INVALID_ARGUMENTS',
      }),
    ).toBe(1);
    expect(
      sample(text, `${HTTP}_bucket`, { ...rest, http_response_status_code: '200', le: '0.005' }),
    ).toBeDefined();
    const CLIENT = 'mcp_client_operation_duration_seconds';
    const upstreamCall = { mcp_server: 'tracker', mcp_method_name: 'tools/call' };
    expect(
      sample(text, `${CLIENT}_count`, { ...upstreamCall, gen_ai_tool_name: 'search_issues' }),
    ).toBe(1);
    const failed = sample(text, `${CLIENT}_count`, {
      ...upstreamCall,
      gen_ai_tool_name: 'broken',
      error_type: 'UPSTREAM_TOOL_ERROR',
    });
    expect(failed).toBe(1);
  });
});
