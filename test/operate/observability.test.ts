import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { specHead } from '../helpers/spec-fixtures.js';

const UPSTREAM_TOKEN = 'upstream-token-Zq8Lw3Xv9Kp2';
const API_KEY = 'caller-key-Hn4Tr7Ye1Wm6';
const METRICS_KEY = 'metrics-key-Pc5Ug2Rb8Dx3';

function spec(upstream: string): string {
  return `
${specHead('ops', `${upstream}/v1`, { bearerEnv: 'OPS_TOKEN' })}
limits max-bytes=2000 budget-bytes=500
access {
    api-key env="OPS_KEYS" scopes="read"
    api-key env="OPS_METRICS_KEYS" scopes="metrics:read"
}
can list things {
    describe "List things."
    path "/things"
    query {
        size "integer" min=0 max=10000 default=3
    }
    scope "read"
}
can get thing {
    describe "Get a thing."
    path "/things/{id}"
    scope "read"
}
toolset "things" {
    tools "get_thing"
}
`;
}

let upstream: Upstream;
let gw: TestGateway;
const auth = { authorization: `Bearer ${API_KEY}` };

useGatewayOnUpstream(
  spec,
  {
    answer: (req, res) => {
      if (req.path === '/v1/things/missing') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'no such thing', echoed: req.headers.authorization }));
        return;
      }
      const size = Number(new URLSearchParams(req.query).get('size') ?? 3);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(Array.from({ length: size }, (_, i) => ({ id: i, name: `thing ${i}` }))),
      );
    },
    env: { OPS_TOKEN: UPSTREAM_TOKEN, OPS_KEYS: API_KEY, OPS_METRICS_KEYS: METRICS_KEY },
  },
  (s) => ({ upstream, gw } = s),
);

function metric(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    if (want.every((w) => inside.split(',').includes(w)))
      return Number(line.slice(line.indexOf('}') + 1));
  }
  return undefined;
}

/** The gateway's /metrics text, read with the metrics key. */
async function metricsText(): Promise<string> {
  const res = await fetch(`${gw.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_KEY}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

function auditLines(logs: string): Record<string, unknown>[] {
  return logs
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.audit === 'tool_call');
}

describe('metrics at /metrics', () => {
  it('count calls by tool, surface and outcome, with upstream classes, truncations and over-budget results', async () => {
    // The file's gateway is shared: each count is read as what this test's calls added.
    const before = await metricsText();
    await postJson(`${gw.url}/api/list_things`, {}, auth);
    await postJson(`${gw.url}/api/list_things`, { size: 500 }, auth); // cut to max-bytes
    await postJson(`${gw.url}/api/get_thing`, { id: 'missing' }, auth); // upstream 404
    await postJson(`${gw.url}/api/get_thing`, { id: 'a/b' }, auth); // refused by the gate
    const mcp = await postJson(
      `${gw.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_things', arguments: {} },
      },
      auth,
    );
    expect(mcp.status).toBe(200);

    const res = await fetch(`${gw.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_KEY}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const added = (name: string, labels: Record<string, string>): number =>
      (metric(text, name, labels) ?? 0) - (metric(before, name, labels) ?? 0);
    expect(
      added('mcp_beaver_tool_calls_total', {
        tool: 'list_things',
        surface: 'rest',
        outcome: 'ok',
      }),
    ).toBe(2);
    expect(
      added('mcp_beaver_tool_calls_total', {
        tool: 'list_things',
        surface: 'mcp',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(
      added('mcp_beaver_tool_calls_total', {
        tool: 'get_thing',
        surface: 'rest',
        outcome: 'UPSTREAM_STATUS',
      }),
    ).toBe(1);
    expect(
      added('mcp_beaver_tool_calls_total', {
        tool: 'get_thing',
        surface: 'rest',
        outcome: 'PATH_VALUE_REJECTED',
      }),
    ).toBe(1);
    expect(
      added('mcp_beaver_upstream_responses_total', { tool: 'list_things', class: '2xx' }),
    ).toBe(3);
    expect(added('mcp_beaver_upstream_responses_total', { tool: 'get_thing', class: '4xx' })).toBe(
      1,
    );
    expect(added('mcp_beaver_truncated_results_total', { tool: 'list_things' })).toBe(1);
    expect(added('mcp_beaver_over_budget_results_total', { tool: 'list_things' })).toBe(1);
    expect(
      added('mcp_beaver_tool_call_duration_seconds_count', {
        tool: 'list_things',
        surface: 'rest',
      }),
    ).toBe(2);
    expect(added('mcp_beaver_result_bytes_count', { tool: 'list_things' })).toBe(3);
    expect(text).toMatch(/^mcp_beaver_spec_last_reload_success 1$/m);
    expect(text).toMatch(/^mcp_beaver_calls_in_flight 0$/m);
    expect(text).toContain('mcp_beaver_nodejs_eventloop_lag_p99_seconds');
    expect(text).toContain('mcp_beaver_process_resident_memory_bytes');
  });
});

describe('metrics behind access', () => {
  const TOOL_NAMES = ['list_things', 'get_thing'];

  it('tell a caller without a valid credential nothing: 401 with a challenge, no tool name, no count', async () => {
    await postJson(`${gw.url}/api/list_things`, {}, auth); // something to count
    for (const headers of [{}, { authorization: 'Bearer not-a-key-at-all' }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${gw.url}/metrics`, { headers });
      const text = await res.text();
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
      for (const name of TOOL_NAMES) expect(text).not.toContain(name);
      expect(text).not.toContain('mcp_beaver_');
    }
  });

  it('refuse a key without the metrics:read scope with 403 INSUFFICIENT_SCOPE naming the scope', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: auth });
    const text = await res.text();
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="metrics:read"/,
    );
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'INSUFFICIENT_SCOPE' } });
    for (const name of TOOL_NAMES) expect(text).not.toContain(name);
  });

  it('with a metrics listener, are served there only: the gateway port answers 404 NOT_FOUND even to the metrics key', async () => {
    const own = await startGateway(spec(upstream.url), {
      env: { OPS_TOKEN: UPSTREAM_TOKEN, OPS_KEYS: API_KEY, OPS_METRICS_KEYS: METRICS_KEY },
      metricsListener: true,
    });
    try {
      expect(own.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(own.metricsUrl).not.toBe(own.url);
      expect((await postJson(`${own.url}/api/list_things`, {}, auth)).status).toBe(200);

      for (const headers of [{}, { authorization: `Bearer ${METRICS_KEY}` }] as Record<
        string,
        string
      >[]) {
        const main = await fetch(`${own.url}/metrics`, { headers });
        const text = await main.text();
        expect(main.status).toBe(404);
        expect(JSON.parse(text)).toMatchObject({ error: { code: 'NOT_FOUND' } });
        expect(text).not.toContain('list_things');
      }

      const scraped = await fetch(`${own.metricsUrl!}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toContain('text/plain');
      const text = await scraped.text();
      expect(
        metric(text, 'mcp_beaver_tool_calls_total', {
          tool: 'list_things',
          surface: 'rest',
          outcome: 'ok',
        }),
      ).toBe(1);

      // Nothing but metrics on that listener, and no DNS-rebinding page reads them.
      const other = await fetch(`${own.metricsUrl!}/api`);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
      const rebound = await request(`${own.metricsUrl!}/metrics`, {
        headers: { host: 'evil.example:9090' },
      });
      expect(rebound.statusCode).toBe(403);
      expect(await rebound.body.text()).not.toContain('list_things');
    } finally {
      await own.close();
    }
  });

  it('without access on loopback, are served on the gateway port to anyone, as before', async () => {
    const open = await startGateway(
      `wrap "ops-open" version="1.0.0"
base-url "${upstream.url}/v1"
can list things {
    path "/things"
}
`,
    );
    try {
      expect((await postJson(`${open.url}/api/list_things`, {})).status).toBe(200);
      const res = await fetch(`${open.url}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('tool="list_things"');
    } finally {
      await open.close();
    }
  });
});

describe('logs', () => {
  it('name the toolset in the audit line of a call that came to its URL, and none on /mcp', async () => {
    const before = auditLines(gw.logs()).length;
    const call = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'get_thing', arguments: { id: 'y' } },
    };
    expect((await postJson(`${gw.url}/mcp/things`, call, auth)).status).toBe(200);
    expect((await postJson(`${gw.url}/mcp`, call, auth)).status).toBe(200);
    const lines = auditLines(gw.logs()).slice(before);
    expect(lines.map((l) => [l.tool, l.surface, l.toolset])).toEqual([
      ['get_thing', 'mcp', 'things'],
      ['get_thing', 'mcp', undefined],
    ]);
  });

  it('write one audit line per tool call with caller, tool, surface, era, outcome, duration, bytes and trace id', async () => {
    const before = auditLines(gw.logs()).length;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await postJson(
      `${gw.url}/api/list_things`,
      { size: 2 },
      { ...auth, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    const modern = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'get_thing',
        arguments: { id: 'x' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
        },
      },
    };
    const r = await postJson(`${gw.url}/mcp`, modern, {
      ...auth,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_thing',
    });
    expect(r.status).toBe(200);
    const lines = auditLines(gw.logs()).slice(before);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      tool: 'list_things',
      caller: 'api-key:OPS_KEYS#1',
      surface: 'rest',
      outcome: 'ok',
      bytes: expect.any(Number),
      truncated: false,
      traceId,
    });
    expect(lines[1]).toMatchObject({
      tool: 'get_thing',
      surface: 'mcp',
      era: 'modern',
      outcome: 'ok',
      traceId: 'a'.repeat(32),
    });
    expect(typeof lines[0]!.durationMs).toBe('number');
    // Argument values are not logged.
    expect(JSON.stringify(lines)).not.toContain('"size"');
  });

  it('continue the caller trace upstream with a new span of the same trace', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await postJson(
      `${gw.url}/api/list_things`,
      {},
      { ...auth, traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    const sent = upstream.requests.at(-1)!.headers.traceparent as string;
    expect(sent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(sent).not.toContain('b7ad6b7169203331');
  });

  it('write one access line per request with its request id once, and no query string', async () => {
    const res = await fetch(`${gw.url}/healthz?token=should-not-be-logged`, {
      headers: { 'x-request-id': 'req-abc-123' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-abc-123');
    const lines = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('"req-abc-123"'));
    // JSON.parse keeps the last of duplicate keys: count them in the raw line.
    expect(lines.map((l) => l.match(/"reqId":/g)?.length)).toEqual([1]);
    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      path: '/healthz',
      status: 200,
    });
    expect(gw.logs()).not.toContain('should-not-be-logged');
  });

  it('never contain the upstream credential, the API key or a bearer token, even when the upstream echoes them', async () => {
    await postJson(`${gw.url}/api/get_thing`, { id: 'missing' }, auth);
    await postJson(
      `${gw.url}/api/list_things`,
      {},
      { authorization: 'Bearer some-unknown-token-Uy7Tq' },
    );
    const logs = gw.logs();
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toContain(UPSTREAM_TOKEN);
    expect(logs).not.toContain(API_KEY);
    expect(logs).not.toContain('some-unknown-token-Uy7Tq');
  });
});
