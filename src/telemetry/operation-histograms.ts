/**
 * The operation histograms of the OpenTelemetry MCP and HTTP semantic conventions, in
 * Prometheus naming, in the server's one registry: `/metrics` serves them whether OTLP
 * is on or off, and OTLP export reads the same series (telemetry/prom-metric-producer.ts),
 * so nothing is counted twice.
 *
 * A label without a value is left out of the series (prom-client writes only the labels
 * given), never written as `""`: that is how OpenTelemetry omits an attribute, and a
 * tools/list is then `{mcp_method_name="tools/list"}`, not four labels two of them empty.
 *
 * Cardinality: every label value is bounded. A method name is one of the MCP methods
 * below or `other`; a tool name is a grant of the spec being served (the projections
 * pass none for a name the spec does not have); `error_type` is an error catalogue code;
 * a protocol version is one this gateway serves; an upstream server is one the spec
 * declares. Nothing a caller writes becomes a label as written.
 */
import type { Registry } from 'prom-client';
import { instrumentsOf } from './instruments.js';
import { HistogramTable } from './prepared-series.js';

/**
 * A catalogue code, or the protocol's own (INVALID_JSON, METHOD_NOT_FOUND, …): the
 * `ErrorCode | ProtocolErrorCode` (engine/error-catalogue.ts, projection/mcp/rpc-codes.ts), as text here,
 * since telemetry imports nothing of the engine, which reports through it.
 */
export type ErrorType = string;

/** The MCP semantic conventions' buckets for operation durations, in seconds. */
export const MCP_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];
/** The HTTP semantic conventions' buckets for `http.server.request.duration`, in seconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

export const MCP_SERVER_DURATION = 'mcp_server_operation_duration_seconds';
export const MCP_CLIENT_DURATION = 'mcp_client_operation_duration_seconds';
export const HTTP_SERVER_DURATION = 'http_server_request_duration_seconds';

/** Every method a client may send; any other method string is counted as `other`. */
const MCP_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
]);

/** The label value for a method string: itself when it is an MCP method, else `other`. */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && MCP_METHODS.has(method) ? method : 'other';
}

export interface McpOperation {
  readonly method: string;
  readonly tool?: string;
  readonly errorType?: ErrorType;
  readonly protocolVersion?: string;
}

export interface McpClientOperation {
  /** The `mcp-server` of the spec the call went to. */
  readonly server: string;
  readonly method: string;
  readonly tool?: string;
  readonly errorType?: ErrorType;
}

export interface HttpServerRequest {
  readonly method: string;
  /** The route template, never the path as requested: `/api/{tool}`. */
  readonly route: string;
  readonly status: number;
  readonly errorType?: ErrorType;
}

export interface OperationHistograms {
  observeMcpOperation(op: McpOperation, seconds: number): void;
  observeMcpClientOperation(op: McpClientOperation, seconds: number): void;
  observeHttpServer(req: HttpServerRequest, seconds: number): void;
}

/**
 * A label set's series is kept (prepared-series.ts) and found again by its values, so an
 * observation adds to it in place. prom-client's own ways were measured: a labels object
 * per observation ~490 ns, a child histogram per label set (`labels(...)`) ~880 ns (it
 * still checks and hashes its labels on every observe).
 */
export function createOperationHistograms(registry: Registry): OperationHistograms {
  const { histogram } = instrumentsOf(registry);
  const server = histogram(
    MCP_SERVER_DURATION,
    'MCP requests answered, from the route receiving the message to its answer.',
    ['mcp_method_name', 'gen_ai_tool_name', 'error_type', 'mcp_protocol_version'],
    MCP_DURATION_BUCKETS,
  );
  const client = histogram(
    MCP_CLIENT_DURATION,
    'Requests to upstream MCP servers, from sending to the mapped answer.',
    ['mcp_method_name', 'gen_ai_tool_name', 'error_type', 'mcp_server'],
    MCP_DURATION_BUCKETS,
  );
  const http = histogram(
    HTTP_SERVER_DURATION,
    'REST tool calls, from the route receiving the request to its answer.',
    ['http_request_method', 'http_route', 'http_response_status_code', 'error_type'],
    HTTP_DURATION_BUCKETS,
  );
  // Each label set's series is found by its values, never labelled and hashed again
  // (prepared-series.ts); the labels object is built as before, once per series.
  const servers = new HistogramTable(
    server,
    MCP_DURATION_BUCKETS,
    (method: string, tool?: string, errorType?: string, protocolVersion?: string) => {
      const labels: Record<string, string> = { mcp_method_name: method };
      if (tool !== undefined) labels.gen_ai_tool_name = tool;
      if (errorType !== undefined) labels.error_type = errorType;
      if (protocolVersion !== undefined) labels.mcp_protocol_version = protocolVersion;
      return labels;
    },
  );
  const clients = new HistogramTable(
    client,
    MCP_DURATION_BUCKETS,
    (method: string, name: string, tool?: string, errorType?: string) => {
      const labels: Record<string, string> = { mcp_method_name: method, mcp_server: name };
      if (tool !== undefined) labels.gen_ai_tool_name = tool;
      if (errorType !== undefined) labels.error_type = errorType;
      return labels;
    },
  );
  const https = new HistogramTable(
    http,
    HTTP_DURATION_BUCKETS,
    (method: string, route: string, status: string, errorType?: string) => {
      const labels: Record<string, string> = {
        http_request_method: method,
        http_route: route,
        http_response_status_code: status,
      };
      if (errorType !== undefined) labels.error_type = errorType;
      return labels;
    },
  );
  return {
    observeMcpOperation({ method, tool, errorType, protocolVersion }, seconds) {
      servers.series(methodLabel(method), tool, errorType, protocolVersion).observe(seconds);
    },
    observeMcpClientOperation({ server: name, method, tool, errorType }, seconds) {
      clients.series(methodLabel(method), name, tool, errorType).observe(seconds);
    },
    observeHttpServer({ method, route, status, errorType }, seconds) {
      https.series(method, route, String(status), errorType).observe(seconds);
    },
  };
}
