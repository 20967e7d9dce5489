import { describe, expect, it } from 'vitest';
import {
  AggregationTemporality,
  DataPointType,
  type HistogramMetricData,
  type MetricData,
  type SumMetricData,
} from '@opentelemetry/sdk-metrics';
import { createMetrics } from '../../src/telemetry/metrics.js';
import { createPromMetricProducer, histogramOf } from '../../src/telemetry/prom-metric-producer.js';

async function collected(observe: (m: ReturnType<typeof createMetrics>) => void) {
  const metrics = createMetrics();
  observe(metrics);
  const { resourceMetrics, errors } = await createPromMetricProducer(metrics.registry).collect();
  expect(errors).toEqual([]);
  const byName = new Map<string, HistogramMetricData>();
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics) byName.set(m.descriptor.name, m as HistogramMetricData);
  return byName;
}

describe('the operation histograms as an OpenTelemetry metric producer', () => {
  it('gives MCP requests as mcp.server.operation.duration with the conventions’ attribute keys', async () => {
    const got = await collected((m) => {
      m.observeMcpOperation(
        { method: 'tools/call', tool: 'list_issues', protocolVersion: '2025-11-25' },
        0.004,
      );
      m.observeMcpOperation(
        { method: 'tools/call', tool: 'list_issues', protocolVersion: '2025-11-25' },
        0.015,
      );
      m.observeMcpOperation(
        { method: 'tools/call', tool: 'list_issues', protocolVersion: '2025-11-25' },
        0.015,
      );
      m.observeMcpOperation(
        { method: 'tools/call', tool: 'list_issues', protocolVersion: '2025-11-25' },
        400,
      );
      m.observeMcpOperation(
        {
          method: 'tools/call',
          tool: 'list_issues',
          errorType: 'UPSTREAM_ERROR',
          protocolVersion: '2026-07-28',
        },
        0.3,
      );
    });
    const server = got.get('mcp.server.operation.duration')!;
    expect(server.descriptor.unit).toBe('s');
    expect(server.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(server.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    expect(server.dataPoints.map((p) => p.attributes)).toEqual([
      {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'list_issues',
        'mcp.protocol.version': '2025-11-25',
      },
      {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'list_issues',
        'error.type': 'UPSTREAM_ERROR',
        'mcp.protocol.version': '2026-07-28',
      },
    ]);
    const ok = server.dataPoints[0]!.value;
    expect(ok.buckets.boundaries).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
    ]);
    // One at or below 0.01, two in (0.01, 0.02], none between, one above 300.
    expect(ok.buckets.counts).toEqual([1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ok.count).toBe(4);
    expect(ok.sum).toBeCloseTo(400.034, 9);
    expect(server.dataPoints[1]!.value.buckets.counts).toEqual([
      0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
  });

  it('gives REST calls as http.server.request.duration, the status an integer, and upstream calls as mcp.client.operation.duration', async () => {
    const got = await collected((m) => {
      m.observeHttpServer(
        { method: 'POST', route: '/api/{tool}', status: 422, errorType: 'INVALID_ARGUMENTS' },
        0.007,
      );
      m.observeMcpClientOperation(
        { server: 'tracker', method: 'tools/call', tool: 'search' },
        0.05,
      );
    });
    const http = got.get('http.server.request.duration')!;
    expect(http.dataPoints).toHaveLength(1);
    expect(http.dataPoints[0]!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/api/{tool}',
      'http.response.status_code': 422,
      'error.type': 'INVALID_ARGUMENTS',
    });
    expect(http.dataPoints[0]!.value.buckets.boundaries).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]);
    expect(http.dataPoints[0]!.value.buckets.counts).toEqual([
      0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    const client = got.get('mcp.client.operation.duration')!;
    expect(client.dataPoints[0]!.attributes).toEqual({
      'mcp_beaver.mcp_server': 'tracker',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search',
    });
    // 0.05 is at its bucket's upper bound, so it is counted in (0.02, 0.05].
    expect(client.dataPoints[0]!.value.buckets.counts.indexOf(1)).toBe(2);
  });

  it('leaves out a histogram or a counter nothing was observed in', async () => {
    const got = await collected((m) => m.observeMcpOperation({ method: 'tools/list' }, 0.001));
    // The gauges always have their one value; of the rest, only what was observed.
    expect(
      [...got.keys()].filter(
        (name) => (got.get(name) as MetricData).dataPointType !== DataPointType.GAUGE,
      ),
    ).toEqual(['mcp.server.operation.duration']);
    expect(got.get('mcp.server.operation.duration')!.dataPoints[0]!.attributes).toEqual({
      'mcp.method.name': 'tools/list',
    });
  });

  it('counts a method that is not MCP’s as other, so a caller cannot add series', async () => {
    const got = await collected((m) =>
      m.observeMcpOperation({ method: 'made/up-by-a-caller' }, 0.001),
    );
    expect(got.get('mcp.server.operation.duration')!.dataPoints[0]!.attributes).toEqual({
      'mcp.method.name': 'other',
    });
  });

  it('gives the mcp_beaver_* counters as monotonic sums in the conventions’ style, from the same increments /metrics shows', async () => {
    const metrics = createMetrics();
    const call = {
      tool: 'list_issues',
      caller: 'k1',
      credential: 'service',
      origin: { surface: 'rest' },
      durationMs: 12,
      bytes: 2048,
      truncated: true,
      upstreamStatus: 503,
    };
    metrics.observeCall({ ...call, outcome: 'ok' });
    metrics.observeCall({ ...call, outcome: 'ok' });
    metrics.observeCall({ ...call, outcome: 'UPSTREAM_STATUS' });
    metrics.reloaded(false, 2);
    const { resourceMetrics } = await createPromMetricProducer(metrics.registry).collect();
    const byName = new Map(
      resourceMetrics.scopeMetrics[0]!.metrics.map((m) => [m.descriptor.name, m]),
    );
    const calls = byName.get('mcp_beaver.tool.calls') as SumMetricData;
    expect(calls.descriptor.unit).toBe('{call}');
    expect(calls.dataPointType).toBe(DataPointType.SUM);
    expect(calls.isMonotonic).toBe(true);
    expect(calls.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [
        {
          'gen_ai.tool.name': 'list_issues',
          'mcp_beaver.surface': 'rest',
          'mcp_beaver.outcome': 'ok',
        },
        2,
      ],
      [
        {
          'gen_ai.tool.name': 'list_issues',
          'mcp_beaver.surface': 'rest',
          'mcp_beaver.outcome': 'UPSTREAM_STATUS',
        },
        1,
      ],
    ]);
    // The same series /metrics serves: one increment, two exporters.
    expect(await metrics.registry.metrics()).toContain(
      'mcp_beaver_tool_calls_total{tool="list_issues",surface="rest",outcome="ok"} 2',
    );
    expect(
      (byName.get('mcp_beaver.upstream.responses') as SumMetricData).dataPoints[0],
    ).toMatchObject({
      attributes: { 'gen_ai.tool.name': 'list_issues', 'mcp_beaver.upstream.status_class': '5xx' },
      value: 3,
    });
    expect((byName.get('mcp_beaver.results.truncated') as SumMetricData).dataPoints[0]!.value).toBe(
      3,
    );
    expect((byName.get('mcp_beaver.spec.reloads') as SumMetricData).dataPoints[0]).toMatchObject({
      attributes: { 'mcp_beaver.reload.result': 'failure' },
      value: 1,
    });
    const size = byName.get('mcp_beaver.result.size') as HistogramMetricData;
    expect(size.descriptor.unit).toBe('By');
    expect(size.dataPoints[0]!.value.count).toBe(3);
    const duration = byName.get('mcp_beaver.tool.call.duration') as HistogramMetricData;
    expect(duration.descriptor.unit).toBe('s');
    expect(byName.get('mcp_beaver.calls.in_flight')!.dataPointType).toBe(DataPointType.GAUGE);
    // Process metrics stay on /metrics only.
    expect([...byName.keys()].some((n) => n.includes('process'))).toBe(false);
  });

  it('turns cumulative bucket counts into per-interval counts', () => {
    const h = histogramOf(
      [1, 2, 3],
      new Map([
        [1, 2],
        [2, 2],
        [3, 5],
      ]),
      10,
      6,
    );
    expect(h.buckets.counts).toEqual([2, 0, 3, 1]);
    expect(h.count).toBe(6);
  });
});
