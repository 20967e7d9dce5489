/**
 * Prometheus metrics (`GET /metrics`): per tool and surface — calls, outcomes by code,
 * latency, upstream status classes, result bytes, truncations, over-budget results —
 * plus process and event-loop metrics and spec reloads. One registry per server, so
 * several servers in one process (tests) never share counters. The operation histograms
 * of the OpenTelemetry MCP and HTTP conventions are here too, in Prometheus naming
 * (operation-histograms.ts); OTLP export reads them from this registry when it is on.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
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

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mcp_beaver_' });
  const calls = new Counter({
    name: 'mcp_beaver_tool_calls_total',
    help: 'Tool calls by tool, surface (mcp, rest) and outcome (ok or the error code).',
    labelNames: ['tool', 'surface', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'mcp_beaver_tool_call_duration_seconds',
    help: 'Tool call latency inside the gateway, from admission to envelope.',
    labelNames: ['tool', 'surface'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'mcp_beaver_upstream_responses_total',
    help: 'Upstream HTTP responses by tool and status class (2xx, 3xx, 4xx, 5xx).',
    labelNames: ['tool', 'class'] as const,
    registers: [registry],
  });
  const bytes = new Histogram({
    name: 'mcp_beaver_result_bytes',
    help: 'Size of complete results before truncation.',
    labelNames: ['tool'] as const,
    buckets: [256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304],
    registers: [registry],
  });
  const truncated = new Counter({
    name: 'mcp_beaver_truncated_results_total',
    help: 'Results cut to max-bytes or max-rows.',
    labelNames: ['tool'] as const,
    registers: [registry],
  });
  const overBudget = new Counter({
    name: 'mcp_beaver_over_budget_results_total',
    help: 'Envelopes larger than budget-bytes.',
    labelNames: ['tool'] as const,
    registers: [registry],
  });
  const reloads = new Counter({
    name: 'mcp_beaver_spec_reloads_total',
    help: 'Spec reloads by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const lastReload = new Gauge({
    name: 'mcp_beaver_spec_last_reload_success',
    help: '1 when the last reload succeeded (or none happened yet), 0 when it failed.',
    registers: [registry],
  });
  const generation = new Gauge({
    name: 'mcp_beaver_spec_generation',
    help: 'How many specs have been loaded, the first one included.',
    registers: [registry],
  });
  const fallback = new Gauge({
    name: 'mcp_beaver_rate_limit_fallback',
    help: '1 while rate limits fall back to per-pod counting because Redis is unreachable.',
    registers: [registry],
  });
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
  return {
    registry,
    observeMcpOperation: operations.observeMcpOperation,
    observeMcpClientOperation: operations.observeMcpClientOperation,
    observeHttpServer: operations.observeHttpServer,
    observeCall(e) {
      const surface = e.origin?.surface ?? 'unknown';
      calls.inc({ tool: e.tool, surface, outcome: e.outcome });
      duration.observe({ tool: e.tool, surface }, e.durationMs / 1000);
      if (e.upstreamStatus !== undefined)
        upstream.inc({ tool: e.tool, class: `${Math.floor(e.upstreamStatus / 100)}xx` });
      if (e.bytes !== undefined) bytes.observe({ tool: e.tool }, e.bytes);
      if (e.truncated) truncated.inc({ tool: e.tool });
      if (e.overBudget) overBudget.inc({ tool: e.tool });
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
