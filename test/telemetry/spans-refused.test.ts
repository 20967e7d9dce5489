/**
 * A request refused before the call pipeline (issue 39): a 401 for a missing credential,
 * a 403 for a foreign Origin, a 413 for a body over the limit. Each leaves a SERVER span
 * (its route, the status, `error.type` the catalogue code, the guard) and a point on
 * http.server.request.duration, on the MCP endpoint and on REST alike; and every server
 * span over HTTP says `url.scheme`, `server.port` and `client.address`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  newTraceparent,
  recordingTelemetry,
  type RecordingTelemetry,
} from '../helpers/recording-telemetry.js';
import { GET_THING_GRANT, specHead } from '../helpers/spec-fixtures.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { BODY_LIMIT } from '../../src/server/app.js';

const KEY = 'refused-spans-key-Qm4Tz8';

let upstream: Upstream;
let telemetry: RecordingTelemetry;
let gw: TestGateway;
let port: number;

beforeAll(async () => {
  upstream = await startUpstream();
  telemetry = recordingTelemetry();
  gw = await startGateway(
    `${specHead('refused-spans', `${upstream.url}/v1`)}
access {
    api-key env="CALLER_KEYS" scopes="read"
}
${GET_THING_GRANT}
`,
    { env: { CALLER_KEYS: KEY }, telemetry },
  );
  port = Number(new URL(gw.url).port);
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

beforeEach(() => {
  telemetry.spans.length = 0;
});

/** The count of http.server.request.duration's series with exactly these labels. */
async function durationCount(labels: Record<string, string>): Promise<number> {
  const metric = gw.metrics.registry.getSingleMetric('http_server_request_duration_seconds');
  const got = await metric!.get();
  const same = (l: Record<string, unknown>): boolean =>
    Object.keys(l).length === Object.keys(labels).length &&
    Object.entries(labels).every(([k, v]) => String(l[k]) === v);
  // prom-client's histogram values carry the series they belong to (_bucket, _sum, _count).
  const values = got.values as {
    labels: Record<string, unknown>;
    value: number;
    metricName?: string;
  }[];
  return values
    .filter((v) => v.metricName === 'http_server_request_duration_seconds_count' && same(v.labels))
    .reduce((n, v) => n + v.value, 0);
}

const toolsList = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {},
};

describe('a request refused at the edge', () => {
  it('leaves a server span and a duration point for a 401 on /mcp, in the caller’s trace', async () => {
    const sent = newTraceparent();
    const res = await postJson(`${gw.url}/mcp`, toolsList, { traceparent: sent.traceparent });
    expect(res.status).toBe(401);
    const span = telemetry.one('POST /mcp');
    expect(span).toMatchObject({
      kind: 'server',
      traceId: sent.traceId,
      parentId: sent.spanId,
      error: 'UNAUTHENTICATED',
      ended: true,
    });
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/mcp',
      'http.response.status_code': 401,
      'mcp_beaver.refused_by': 'auth',
      'url.scheme': 'http',
      'server.port': port,
      'client.address': '127.0.0.1',
    });
    expect(JSON.stringify(telemetry.spans)).not.toContain(KEY);
    expect(
      await durationCount({
        http_request_method: 'POST',
        http_route: '/mcp',
        http_response_status_code: '401',
        error_type: 'UNAUTHENTICATED',
      }),
    ).toBe(1);
  });

  it('leaves them for a 403 of a foreign Origin on a toolset’s endpoint, its route a template', async () => {
    const res = await postJson(`${gw.url}/mcp/ops`, toolsList, {
      authorization: `Bearer ${KEY}`,
      origin: 'http://evil.example',
    });
    expect(res.status).toBe(403);
    const span = telemetry.one('POST /mcp/{toolset}');
    expect(span.error).toBe('FORBIDDEN_ORIGIN');
    expect(span.attributes).toMatchObject({
      'http.route': '/mcp/{toolset}',
      'http.response.status_code': 403,
    });
    expect(
      await durationCount({
        http_request_method: 'POST',
        http_route: '/mcp/{toolset}',
        http_response_status_code: '403',
        error_type: 'FORBIDDEN_ORIGIN',
      }),
    ).toBe(1);
  });

  it('leaves them for a 413 of a REST call whose body is over the limit', async () => {
    const res = await fetch(`${gw.url}/api/get_thing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: `{"owner":"${'a'.repeat(BODY_LIMIT)}"}`,
    });
    expect(res.status).toBe(413);
    const span = telemetry.one('POST /api/{tool}');
    expect(span.error).toBe('PAYLOAD_TOO_LARGE');
    expect(span.attributes).toMatchObject({
      'http.route': '/api/{tool}',
      'http.response.status_code': 413,
      'client.address': '127.0.0.1',
    });
    expect(
      await durationCount({
        http_request_method: 'POST',
        http_route: '/api/{tool}',
        http_response_status_code: '413',
        error_type: 'PAYLOAD_TOO_LARGE',
      }),
    ).toBe(1);
  });
});

describe('a request served over HTTP', () => {
  it('gives its MCP server span url.scheme, server.port and client.address', async () => {
    const res = await postJson(`${gw.url}/mcp`, toolsList, { authorization: `Bearer ${KEY}` });
    expect(res.status).toBe(200);
    expect(telemetry.one('tools/list').attributes).toMatchObject({
      'url.scheme': 'http',
      'server.port': port,
      'client.address': '127.0.0.1',
    });
  });

  it('gives its REST server span the same', async () => {
    const res = await postJson(
      `${gw.url}/api/get_thing`,
      { owner: 'acme', id: 'x1' },
      { authorization: `Bearer ${KEY}` },
    );
    expect(res.status).toBe(200);
    expect(telemetry.one('POST /api/{tool}').attributes).toMatchObject({
      'url.scheme': 'http',
      'server.port': port,
      'client.address': '127.0.0.1',
    });
  });
});
