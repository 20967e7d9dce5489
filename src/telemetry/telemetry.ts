/**
 * The gateway's traces (issue 30): server spans for its requests, and their children,
 * in the names of the OpenTelemetry MCP semantic conventions (conventions.ts). The
 * operation histograms are not here: they live in the one metrics registry
 * (metrics.ts), which /metrics serves always and OTLP export reads when on, so
 * there is no second bookkeeping. TELEMETRY_OFF is what every server holds unless OTLP export is
 * switched on (`OTEL_EXPORTER_OTLP_*ENDPOINT`, or `serve --otlp <url>`); only then is
 * the OpenTelemetry SDK imported (otel-telemetry.ts), so a gateway without it loads no
 * package of it and spends nothing per request.
 */
import { NO_SPAN, type Attributes, type Span } from './span.js';

/** Where a request's trace continues from: `_meta.traceparent` / the header, as received. */
export interface TraceParent {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

export interface Telemetry {
  /** False for TELEMETRY_OFF: nothing records, nothing is exported. */
  readonly on: boolean;
  /**
   * A SERVER span for one request, the direct child of `parent` when it is valid;
   * `startTime` (a `performance.now()` reading) when the request began before the span
   * is made (a request refused at the edge is spanned once it is answered).
   */
  serverSpan(name: string, parent: TraceParent, attributes?: Attributes, startTime?: number): Span;
  /** Flushes what is batched and stops exporting (bounded: a collector that is down loses it). */
  shutdown(): Promise<void>;
}

export const TELEMETRY_OFF: Telemetry = Object.freeze({
  on: false,
  serverSpan: () => NO_SPAN,
  shutdown: () => Promise.resolve(),
});
