/**
 * The operation histograms of the one metrics registry (operation-histograms.ts)
 * as an OpenTelemetry `MetricProducer`: OTLP export reads the series `/metrics` serves,
 * so there is no second bookkeeping. Each collect() reads the three histograms and gives
 * them back in the conventions' names (`mcp.server.operation.duration`, seconds) with
 * the conventions' attribute keys (`mcp.method.name`, …), cumulative like Prometheus.
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
  type Histogram,
  type HistogramMetricData,
  type MetricProducer,
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
}

const EXPORTED: readonly Exported[] = [
  {
    prom: MCP_SERVER_DURATION,
    name: 'mcp.server.operation.duration',
    description: 'Duration of MCP requests answered by the gateway.',
  },
  {
    prom: MCP_CLIENT_DURATION,
    name: 'mcp.client.operation.duration',
    description: 'Duration of requests the gateway made of upstream MCP servers.',
  },
  {
    prom: HTTP_SERVER_DURATION,
    name: 'http.server.request.duration',
    description: 'Duration of REST tool calls.',
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

export function createPromMetricProducer(
  registry: Registry,
  opts: PromProducerOptions = {},
): MetricProducer {
  const resource = opts.resource ?? emptyResource();
  const startTime = opts.startTime ?? hrTime(Date.now());
  return {
    async collect() {
      const endTime = hrTime(Date.now());
      const metrics: HistogramMetricData[] = [];
      const errors: unknown[] = [];
      for (const e of EXPORTED) {
        const metric = registry.getSingleMetric(e.prom);
        if (!metric) continue;
        try {
          const got = await metric.get();
          // prom-client writes every bucket of every series, so its `le` values are the bounds.
          const dataPoints: DataPoint<Histogram>[] = seriesOf(got.values, e.prom).map((s) => ({
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
          if (dataPoints.length === 0) continue;
          metrics.push({
            descriptor: {
              name: e.name,
              description: e.description,
              unit: 's',
              valueType: ValueType.DOUBLE,
            },
            aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPointType: DataPointType.HISTOGRAM,
            dataPoints,
          });
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
