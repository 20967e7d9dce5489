/**
 * Prometheus metrics (`GET /metrics`): per tool and surface — calls, outcomes by code,
 * latency, upstream status classes, result bytes, truncations, over-budget results —
 * plus process and event-loop metrics and spec reloads. One registry per server, so
 * several servers in one process (tests) never share counters. The operation histograms
 * of the OpenTelemetry MCP and HTTP conventions are here too, in Prometheus naming
 * (operation-histograms.ts); OTLP export reads them from this registry when it is on.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { instrumentsOf } from './instruments.js';
import { CounterSeries, HistogramSeries } from './prepared-series.js';
import type { CallEvent } from './observer.js';
import {
  createOperationHistograms,
  type HttpServerRequest,
  type McpClientOperation,
  type McpOperation,
} from './operation-histograms.js';

/** The scope that reads /metrics on the main port when the spec has `access`. */
export const METRICS_SCOPE = 'metrics:read';

export interface Metrics {
  readonly registry: Registry;
  observeCall(e: CallEvent): void;
  reloaded(success: boolean, generation: number): void;
  rateLimitFallback(active: boolean): void;
  /** Sampled at scrape time. */
  setInFlight(read: () => number): void;
  /** One MCP request answered (`mcp_server_operation_duration_seconds`). */
  observeMcpOperation(op: McpOperation, seconds: number): void;
  /** One tools/call to an upstream MCP server (`mcp_client_operation_duration_seconds`). */
  observeMcpClientOperation(op: McpClientOperation, seconds: number): void;
  /** One REST tool call (`http_server_request_duration_seconds`). */
  observeHttpServer(req: HttpServerRequest, seconds: number): void;
}

/** One tool's series: calls by surface then outcome, duration by surface, upstream by status/100. */
interface ToolSeries {
  readonly calls: Map<string, Map<string, CounterSeries>>;
  readonly duration: Map<string, HistogramSeries>;
  readonly upstream: CounterSeries[];
  readonly bytes: HistogramSeries;
  readonly truncated: CounterSeries;
  readonly overBudget: CounterSeries;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mcp_beaver_' });
  const { counter, histogram, gauge } = instrumentsOf(registry);
  const calls = counter(
    'mcp_beaver_tool_calls_total',
    'Tool calls by tool, surface (mcp, rest) and outcome (ok or the error code).',
    ['tool', 'surface', 'outcome'],
  );
  const durationBuckets = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  const duration = histogram(
    'mcp_beaver_tool_call_duration_seconds',
    'Tool call latency inside the gateway, from admission to envelope.',
    ['tool', 'surface'],
    durationBuckets,
  );
  const upstream = counter(
    'mcp_beaver_upstream_responses_total',
    'Upstream HTTP responses by tool and status class (2xx, 3xx, 4xx, 5xx).',
    ['tool', 'class'],
  );
  const bytesBuckets = [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
  const bytes = histogram(
    'mcp_beaver_result_bytes',
    'Size of complete results before truncation.',
    ['tool'],
    bytesBuckets,
  );
  const truncated = counter(
    'mcp_beaver_truncated_results_total',
    'Results cut to max-bytes or max-rows.',
    ['tool'],
  );
  const overBudget = counter(
    'mcp_beaver_over_budget_results_total',
    'Envelopes larger than budget-bytes.',
    ['tool'],
  );
  const reloads = counter('mcp_beaver_spec_reloads_total', 'Spec reloads by result.', ['result']);
  const lastReload = gauge(
    'mcp_beaver_spec_last_reload_success',
    '1 when the last reload succeeded (or none happened yet), 0 when it failed.',
    // With --workers: 0 when any worker's last reload failed.
    'min',
  );
  const generation = gauge(
    'mcp_beaver_spec_generation',
    'How many specs have been loaded, the first one included.',
    'max',
  );
  const fallback = gauge(
    'mcp_beaver_rate_limit_fallback',
    '1 while rate limits fall back to per-pod counting because Redis is unreachable.',
    'max',
  );
  let readInFlight = (): number => 0;
  new Gauge({
    name: 'mcp_beaver_calls_in_flight',
    help: 'Tool calls being served now.',
    registers: [registry],
    collect() {
      this.set(readInFlight());
    },
  });
  lastReload.set(1);
  generation.set(1);
  fallback.set(0);
  const operations = createOperationHistograms(registry);
  // A tool's series, found by one lookup of its name: each is made on its first count.
  const perTool = new Map<string, ToolSeries>();
  const toolSeries = (tool: string): ToolSeries => {
    let s = perTool.get(tool);
    if (s === undefined) {
      s = {
        calls: new Map(),
        duration: new Map(),
        upstream: [],
        bytes: new HistogramSeries(bytes, { tool }, bytesBuckets),
        truncated: new CounterSeries(truncated, { tool }),
        overBudget: new CounterSeries(overBudget, { tool }),
      };
      perTool.set(tool, s);
    }
    return s;
  };
  return {
    registry,
    observeMcpOperation: operations.observeMcpOperation,
    observeMcpClientOperation: operations.observeMcpClientOperation,
    observeHttpServer: operations.observeHttpServer,
    // Runs on every call: the series are looked up, never labelled and hashed again.
    observeCall(e) {
      const { tool, outcome } = e;
      const surface = e.origin?.surface ?? 'unknown';
      const s = toolSeries(tool);
      let bySurface = s.calls.get(surface);
      if (bySurface === undefined) s.calls.set(surface, (bySurface = new Map()));
      let call = bySurface.get(outcome);
      if (call === undefined)
        bySurface.set(outcome, (call = new CounterSeries(calls, { tool, surface, outcome })));
      call.inc();
      let took = s.duration.get(surface);
      if (took === undefined)
        s.duration.set(
          surface,
          (took = new HistogramSeries(duration, { tool, surface }, durationBuckets)),
        );
      took.observe(e.durationMs / 1000);
      if (e.upstreamStatus !== undefined) {
        const hundreds = Math.floor(e.upstreamStatus / 100);
        (s.upstream[hundreds] ??= new CounterSeries(upstream, {
          tool,
          class: `${hundreds}xx`,
        })).inc();
      }
      if (e.bytes !== undefined) s.bytes.observe(e.bytes);
      if (e.truncated) s.truncated.inc();
      if (e.overBudget) s.overBudget.inc();
    },
    reloaded(success, gen) {
      reloads.inc({ result: success ? 'success' : 'failure' });
      lastReload.set(success ? 1 : 0);
      generation.set(gen);
    },
    rateLimitFallback(active) {
      fallback.set(active ? 1 : 0);
    },
    setInFlight(read) {
      readInFlight = read;
    },
  };
}
