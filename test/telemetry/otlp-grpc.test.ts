/**
 * OTLP over gRPC end to end (issue 39): a gateway started with
 * OTEL_EXPORTER_OTLP_PROTOCOL=grpc exports its spans and metrics to a real gRPC
 * collector (otlp-receiver.ts `startOtlpGrpcReceiver`, @grpc/grpc-js) at the base
 * address as given, with the configured headers as gRPC metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { KIND, startOtlpGrpcReceiver, type OtlpGrpcReceiver } from '../helpers/otlp-receiver.js';
import { newTraceparent } from '../helpers/recording-telemetry.js';
import { GET_THING_GRANT, specHead } from '../helpers/spec-fixtures.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

let upstream: Upstream;
let receiver: OtlpGrpcReceiver;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  receiver = await startOtlpGrpcReceiver();
  gw = await startGateway(`${specHead('grpc-otlp', `${upstream.url}/v1`)}\n${GET_THING_GRANT}\n`, {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme%20corp',
      OTEL_SERVICE_NAME: 'grpc-otlp',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await receiver?.close();
  await upstream?.close();
});

describe('OTLP over gRPC', () => {
  it('exports a REST call’s server and client spans to the collector’s TraceService, headers as metadata', async () => {
    const sent = newTraceparent();
    const res = await postJson(
      `${gw.url}/api/get_thing`,
      { owner: 'acme', id: 'x1' },
      { traceparent: sent.traceparent },
    );
    expect(res.status).toBe(200);
    const spans = await receiver.waitForSpans(
      (all) => all.filter((s) => s.traceId === sent.traceId).length >= 2,
    );
    const mine = spans.filter((s) => s.traceId === sent.traceId);
    const server = mine.find((s) => s.kind === KIND.server);
    expect(server).toMatchObject({
      name: 'POST /api/{tool}',
      parentSpanId: sent.spanId,
      resource: { 'service.name': 'grpc-otlp' },
    });
    expect(mine.find((s) => s.kind === KIND.client)?.parentSpanId).toBe(server?.spanId);
    expect(receiver.metadata[0]).toMatchObject({ 'x-tenant': 'acme corp' });
  });

  it('exports the request-duration histogram and the call counter to the collector’s MetricsService', async () => {
    const metrics = await receiver.waitForMetrics(
      (all) =>
        all.some((m) => m.name === 'http.server.request.duration') &&
        all.some((m) => m.name === 'mcp_beaver.tool.calls'),
    );
    const pointsOf = (name: string) =>
      metrics.filter((m) => m.name === name).flatMap((m) => m.points);
    expect(pointsOf('http.server.request.duration')[0]?.attributes).toMatchObject({
      'http.route': '/api/{tool}',
    });
    expect(pointsOf('mcp_beaver.tool.calls')[0]?.attributes).toEqual({
      'gen_ai.tool.name': 'get_thing',
      'mcp_beaver.surface': 'rest',
      'mcp_beaver.outcome': 'ok',
    });
  });
});
