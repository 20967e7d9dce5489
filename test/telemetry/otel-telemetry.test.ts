import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOtelTelemetry, type TelemetryLog } from '../../src/telemetry/otel-telemetry.js';
import { telemetryConfigFrom } from '../../src/telemetry/telemetry-config.js';
import type { Telemetry } from '../../src/telemetry/telemetry.js';
import { KIND, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`;

interface Line {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

function recordingLog(): TelemetryLog & { lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: Line['level']) =>
    (fields: unknown, msg?: string): void => {
      lines.push({ level, msg: msg ?? '', fields: fields as Record<string, unknown> });
    };
  return { lines, info: at('info'), warn: at('warn') } as unknown as TelemetryLog & {
    lines: Line[];
  };
}

let receiver: OtlpReceiver;
let telemetry: Telemetry | undefined;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  await receiver.close();
});

async function start(env: Record<string, string>, log?: TelemetryLog): Promise<Telemetry> {
  const config = telemetryConfigFrom({ OTEL_BSP_SCHEDULE_DELAY: '50', ...env }, receiver.url);
  if (!config) throw new Error('telemetry should be on');
  telemetry = await createOtelTelemetry(config, { ...(log && { log }) });
  return telemetry;
}

describe.each(['http/protobuf', 'http/json'] as const)('exported over %s', (protocol) => {
  it('a server span continues the caller’s trace and its client child hangs under it', async () => {
    const t = await start({
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'beaver-test',
    });
    const server = t.serverSpan(
      'tools/call list_issues',
      { traceparent: TRACEPARENT, tracestate: 'vendor=abc' },
      {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'list_issues',
        'jsonrpc.request.id': 7,
        skipped: undefined,
      },
    );
    expect(server.recording).toBe(true);
    const client = server.child('GET', 'client', { 'http.request.method': 'GET' });
    client.setAttribute('http.response.status_code', 502);
    client.fail('UPSTREAM_UNAVAILABLE');
    const injected = client.traceparent();
    client.end();
    server.end();
    await t.shutdown();

    const spans = await receiver.waitForSpans(2);
    expect(receiver.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(receiver.requests[0]?.contentType).toContain(
      protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
    );
    const s = spans.find((x) => x.name === 'tools/call list_issues');
    const c = spans.find((x) => x.name === 'GET');
    expect(s).toMatchObject({
      kind: KIND.server,
      traceId: PARENT_TRACE,
      parentSpanId: PARENT_SPAN,
      traceState: 'vendor=abc',
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'list_issues',
        'jsonrpc.request.id': 7,
      },
      status: { code: 0 },
      resource: { 'service.name': 'beaver-test' },
    });
    expect(s?.attributes).not.toHaveProperty('skipped');
    expect(c).toMatchObject({
      kind: KIND.client,
      traceId: PARENT_TRACE,
      parentSpanId: s?.spanId,
      attributes: {
        'http.request.method': 'GET',
        'http.response.status_code': 502,
        'error.type': 'UPSTREAM_UNAVAILABLE',
      },
      status: { code: 2 },
    });
    // What an upstream receives names the child span, in the caller's trace.
    expect(injected).toBe(`00-${PARENT_TRACE}-${c?.spanId}-01`);
    expect(client.tracestate()).toBe('vendor=abc');
  });
});

it('a missing or malformed traceparent starts a new trace', async () => {
  const t = await start({});
  t.serverSpan('tools/list', {}).end();
  t.serverSpan('tools/list', { traceparent: '00-zz-not-a-traceparent' }).end();
  await t.shutdown();
  const spans = await receiver.waitForSpans(2);
  for (const span of spans) {
    expect(span.parentSpanId).toBe('');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
  }
  expect(spans[0]?.traceId).not.toBe(spans[1]?.traceId);
});

it('an unsampled parent is followed: nothing is exported and the flags go on unsampled', async () => {
  const t = await start({});
  const span = t.serverSpan('tools/list', { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-00` });
  expect(span.recording).toBe(false);
  const child = span.child('GET', 'client');
  expect(child.traceparent()).toMatch(new RegExp(`^00-${PARENT_TRACE}-[0-9a-f]{16}-00$`));
  child.end();
  span.end();
  t.serverSpan('tools/list', {}).end();
  await t.shutdown();
  const spans = await receiver.waitForSpans(1);
  expect(spans.map((s) => s.traceId)).not.toContain(PARENT_TRACE);
});

it('a TLS file named by OTEL_EXPORTER_OTLP_CERTIFICATE that cannot be read is said on the log at start, by variable and path', async () => {
  const log = recordingLog();
  const missing = '/nonexistent/mcp-beaver-test/collector-ca.pem';
  const t = await start({ OTEL_EXPORTER_OTLP_CERTIFICATE: missing }, log);
  const warnings = log.lines.filter((l) => l.level === 'warn');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.fields).toMatchObject({
    variable: 'OTEL_EXPORTER_OTLP_CERTIFICATE',
    path: missing,
    err: 'ENOENT',
  });
  expect(warnings[0]?.msg).toContain('cannot be read');
  // The export still runs (an http collector needs no CA).
  t.serverSpan('tools/list', {}).end();
  await t.shutdown();
  expect(await receiver.waitForSpans(1)).toHaveLength(1);
});

describe('a collector that is down', () => {
  it('answering 503: spans are dropped, nothing throws, and the log says so once, then once when it is back', async () => {
    const log = recordingLog();
    const t = await start({ OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, log);
    receiver.failing(true);
    for (let i = 0; i < 3; i++) {
      t.serverSpan(`lost ${i}`, {}).end();
      // Each waits for its own export attempt, so three exports fail.
      await receiver.waitForRequests(i + 1);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const warnings = () => log.lines.filter((l) => l.level === 'warn');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ fields: { otlp: 'traces' } });
    expect(warnings()[0]?.msg).toContain('OTLP traces export failing');

    receiver.failing(false);
    t.serverSpan('kept', {}).end();
    await receiver.waitForSpans((spans) => spans.some((s) => s.name === 'kept'));
    t.serverSpan('kept too', {}).end();
    await receiver.waitForSpans((spans) => spans.some((s) => s.name === 'kept too'));
    await t.shutdown();
    expect(receiver.spans.map((s) => s.name)).toEqual(['kept', 'kept too']);
    expect(warnings()).toHaveLength(1);
    expect(log.lines.filter((l) => l.msg.includes('recovered'))).toHaveLength(1);
  });

  it('refusing connections: shutdown still ends, and the headers’ values never reach the log', async () => {
    const log = recordingLog();
    await receiver.stop();
    const t = await start(
      {
        OTEL_EXPORTER_OTLP_TIMEOUT: '300',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cret-token',
      },
      log,
    );
    t.serverSpan('lost', {}).end();
    await expect(t.shutdown()).resolves.toBeUndefined();
    expect(JSON.stringify(log.lines)).not.toContain('s3cret-token');
    await receiver.start();
  });
});

describe.each(['http/protobuf', 'http/json'] as const)('metrics over %s', (protocol) => {
  it('exports what the metric producer collects, with its points’ attributes', async () => {
    // A real SDK meter read by hand stands for the prom-client registry's producer.
    const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
    class ReadByHand extends MetricReader {
      protected onShutdown(): Promise<void> {
        return Promise.resolve();
      }
      protected onForceFlush(): Promise<void> {
        return Promise.resolve();
      }
    }
    const producer = new ReadByHand();
    const meters = new MeterProvider({ readers: [producer] });
    meters
      .getMeter('test')
      .createHistogram('mcp.server.operation.duration', { unit: 's' })
      .record(0.05, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_issues' });
    const config = telemetryConfigFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol }, receiver.url);
    if (!config) throw new Error('telemetry should be on');
    telemetry = await createOtelTelemetry(config, { metricProducer: producer });
    await telemetry.shutdown();
    await meters.shutdown();
    const metric = receiver.metrics.find((m) => m.name === 'mcp.server.operation.duration');
    expect(metric?.points.map((p) => p.attributes)).toEqual([
      { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_issues' },
    ]);
    expect(receiver.requests.some((r) => r.path === '/v1/metrics')).toBe(true);
  });
});
