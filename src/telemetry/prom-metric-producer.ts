/**
 * The one metrics registry (metrics.ts, operation-histograms.ts) as an OpenTelemetry
 * `MetricProducer`: OTLP export reads the series `/metrics` serves, so one increment
 * feeds both and nothing is counted twice, and the request path pays for none of it
 * (the reading happens at each export). Each collect() reads the operation histograms
 * and the gateway's own `mcp_beaver_*` counters, histograms and gauges, and gives them
 * back in the conventions' style: dotted names without `_total` or a unit suffix, the
 * unit as UCUM (`s`, `By`, `{call}`), the conventions' attribute keys (`mcp.method.name`,
 * `gen_ai.tool.name`, …) and our own under `mcp_beaver.*`; cumulative like Prometheus.
 * Process metrics (prom-client's default ones) are not exported: the runtime's own
 * OpenTelemetry conventions name them differently, and /metrics has them.
 *
 * Loaded only with the OpenTelemetry SDK, when OTLP export is on (docs/observability.md,
 * "Metrics over OTLP").
 */
import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { emptyResource, type Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type DataPoint,
  type GaugeMetricData,
  type Histogram,
  type MetricData,
  type MetricDescriptor,
  type MetricProducer,
  type SumMetricData,
} from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';
import {
  HTTP_SERVER_DURATION,
  MCP_CLIENT_DURATION,
  MCP_SERVER_DURATION,
} from './operation-histograms.js';

interface Exported {
  readonly prom: string;
  readonly name: string;
  readonly description: string;
  /** UCUM, as the conventions write units: `s`, `By`, `{call}`. */
  readonly unit: string;
  readonly type: 'histogram' | 'counter' | 'gauge';
}

const EXPORTED: readonly Exported[] = [
  {
    prom: MCP_SERVER_DURATION,
    name: 'mcp.server.operation.duration',
    description: 'Duration of MCP requests answered by the gateway.',
    unit: 's',
    type: 'histogram',
  },
  {
    prom: MCP_CLIENT_DURATION,
    name: 'mcp.client.operation.duration',
    description: 'Duration of requests the gateway made of upstream MCP servers.',
    unit: 's',
    type: 'histogram',
  },
  {
    prom: HTTP_SERVER_DURATION,
    name: 'http.server.request.duration',
    description: 'Duration of REST tool calls, and of requests refused before their handler.',
    unit: 's',
    type: 'histogram',
  },
  {
    prom: 'mcp_beaver_tool_calls_total',
    name: 'mcp_beaver.tool.calls',
    description: 'Tool calls by tool, surface (mcp, rest) and outcome (ok or the error code).',
    unit: '{call}',
    type: 'counter',
  },
  {
    prom: 'mcp_beaver_tool_call_duration_seconds',
    name: 'mcp_beaver.tool.call.duration',
    description: 'Tool call latency inside the gateway, from admission to envelope.',
    unit: 's',
    type: 'histogram',
  },
  {
    prom: 'mcp_beaver_upstream_responses_total',
    name: 'mcp_beaver.upstream.responses',
    description: 'Upstream HTTP responses by tool and status class (2xx, 3xx, 4xx, 5xx).',
    unit: '{response}',
    type: 'counter',
  },
  {
    prom: 'mcp_beaver_result_bytes',
    name: 'mcp_beaver.result.size',
    description: 'Size of complete results before truncation.',
    unit: 'By',
    type: 'histogram',
  },
  {
    prom: 'mcp_beaver_truncated_results_total',
    name: 'mcp_beaver.results.truncated',
    description: 'Results cut to max-bytes or max-rows.',
    unit: '{result}',
    type: 'counter',
  },
  {
    prom: 'mcp_beaver_over_budget_results_total',
    name: 'mcp_beaver.results.over_budget',
    description: 'Envelopes larger than budget-bytes.',
    unit: '{result}',
    type: 'counter',
  },
  {
    prom: 'mcp_beaver_calls_in_flight',
    name: 'mcp_beaver.calls.in_flight',
    description: 'Tool calls being served now.',
    unit: '{call}',
    type: 'gauge',
  },
  {
    prom: 'mcp_beaver_spec_reloads_total',
    name: 'mcp_beaver.spec.reloads',
    description: 'Spec reloads by result.',
    unit: '{reload}',
    type: 'counter',
  },
  {
    prom: 'mcp_beaver_rate_limit_fallback',
    name: 'mcp_beaver.rate_limit.fallback',
    description: '1 while rate limits fall back to per-pod counting because Redis is unreachable.',
    unit: '1',
    type: 'gauge',
  },
];

/** Prometheus label → attribute key; a label not here is not exported. */
const ATTRIBUTE_KEYS: Readonly<Record<string, string>> = {
  mcp_method_name: 'mcp.method.name',
  gen_ai_tool_name: 'gen_ai.tool.name',
  error_type: 'error.type',
  mcp_protocol_version: 'mcp.protocol.version',
  // Our own: the spec's `mcp-server` name (server.address would be its endpoint).
  mcp_server: 'mcp_beaver.mcp_server',
  http_request_method: 'http.request.method',
  http_route: 'http.route',
  http_response_status_code: 'http.response.status_code',
  // The gateway's own counters' labels.
  tool: 'gen_ai.tool.name',
  surface: 'mcp_beaver.surface',
  outcome: 'mcp_beaver.outcome',
  class: 'mcp_beaver.upstream.status_class',
  result: 'mcp_beaver.reload.result',
};

/** The attributes whose conventions type them as integers. */
const INT_ATTRIBUTES: ReadonlySet<string> = new Set(['http.response.status_code']);

export interface PromProducerOptions {
  readonly resource?: Resource;
  /** When the series began counting (cumulative `startTime`); by default, now. */
  readonly startTime?: HrTime;
}

function hrTime(ms: number): HrTime {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

/** One prom-client value as `get()` gives it. */
interface PromValue {
  readonly labels: Partial<Readonly<Record<string, string | number>>>;
  readonly value: number;
  readonly metricName?: string;
}

/** A series being assembled: its attributes, cumulative buckets by bound, sum and count. */
interface Series {
  readonly attributes: Attributes;
  readonly cumulative: Map<number, number>;
  sum: number;
  count: number;
}

function seriesKey(labels: PromValue['labels']): string {
  return Object.keys(labels)
    .filter((k) => k !== 'le')
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\n');
}

function attributesOf(labels: PromValue['labels']): Attributes {
  const out: Attributes = {};
  for (const [label, value] of Object.entries(labels)) {
    const key = ATTRIBUTE_KEYS[label];
    if (key !== undefined && value !== undefined)
      out[key] = INT_ATTRIBUTES.has(key) ? Number(value) : String(value);
  }
  return out;
}

/**
 * Prometheus buckets count everything at or below their bound (cumulative, `+Inf` last);
 * an OTLP data point counts each interval once: bucket i is (bound[i-1], bound[i]], and
 * one more bucket holds what lies above the last bound.
 */
export function histogramOf(
  boundaries: readonly number[],
  cumulative: ReadonlyMap<number, number>,
  sum: number,
  count: number,
): Histogram {
  const counts: number[] = [];
  let below = 0;
  for (const b of boundaries) {
    const atOrBelow = cumulative.get(b) ?? below;
    counts.push(atOrBelow - below);
    below = atOrBelow;
  }
  counts.push(count - below);
  return { buckets: { boundaries: [...boundaries], counts }, sum, count };
}

function seriesOf(values: readonly PromValue[], name: string): Series[] {
  const byKey = new Map<string, Series>();
  for (const v of values) {
    const key = seriesKey(v.labels);
    let s = byKey.get(key);
    if (s === undefined) {
      const { le: _le, ...labels } = v.labels;
      s = { attributes: attributesOf(labels), cumulative: new Map(), sum: 0, count: 0 };
      byKey.set(key, s);
    }
    if (v.metricName === `${name}_sum`) s.sum = v.value;
    else if (v.metricName === `${name}_count`) s.count = v.value;
    else if (v.labels.le !== undefined && v.labels.le !== '+Inf')
      s.cumulative.set(Number(v.labels.le), v.value);
  }
  return [...byKey.values()];
}

/** One value per series: a counter's or a gauge's `get()`. */
function numberPoints(
  values: readonly PromValue[],
  startTime: HrTime,
  endTime: HrTime,
): DataPoint<number>[] {
  return values.map((v) => ({
    startTime,
    endTime,
    attributes: attributesOf(v.labels),
    value: v.value,
  }));
}

function histogramPoints(
  values: readonly PromValue[],
  prom: string,
  startTime: HrTime,
  endTime: HrTime,
): DataPoint<Histogram>[] {
  // prom-client writes every bucket of every series, so its `le` values are the bounds.
  return seriesOf(values, prom).map((s) => ({
    startTime,
    endTime,
    attributes: s.attributes,
    value: histogramOf(
      [...s.cumulative.keys()].sort((a, b) => a - b),
      s.cumulative,
      s.sum,
      s.count,
    ),
  }));
}

/** One exported metric as OTel data; undefined while it has no series yet. */
function metricOf(
  e: Exported,
  values: readonly PromValue[],
  startTime: HrTime,
  endTime: HrTime,
): MetricData | undefined {
  const descriptor: MetricDescriptor = {
    name: e.name,
    description: e.description,
    unit: e.unit,
    valueType: e.type === 'histogram' ? ValueType.DOUBLE : ValueType.INT,
  };
  if (e.type === 'histogram') {
    const dataPoints = histogramPoints(values, e.prom, startTime, endTime);
    if (dataPoints.length === 0) return undefined;
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }
  const dataPoints = numberPoints(values, startTime, endTime);
  if (dataPoints.length === 0) return undefined;
  if (e.type === 'gauge')
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.GAUGE,
      dataPoints,
    } satisfies GaugeMetricData;
  return {
    descriptor,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints,
  } satisfies SumMetricData;
}

export function createPromMetricProducer(
  registry: Registry,
  opts: PromProducerOptions = {},
): MetricProducer {
  const resource = opts.resource ?? emptyResource();
  const startTime = opts.startTime ?? hrTime(Date.now());
  return {
    async collect() {
      const endTime = hrTime(Date.now());
      const metrics: MetricData[] = [];
      const errors: unknown[] = [];
      for (const e of EXPORTED) {
        const metric = registry.getSingleMetric(e.prom);
        if (!metric) continue;
        try {
          const got = await metric.get();
          const data = metricOf(e, got.values, startTime, endTime);
          if (data) metrics.push(data);
        } catch (err) {
          errors.push(err);
        }
      }
      return {
        resourceMetrics: { resource, scopeMetrics: [{ scope: { name: 'mcp-beaver' }, metrics }] },
        errors,
      };
    },
  };
}
