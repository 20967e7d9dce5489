/**
 * The OTLP/HTTP protobuf span exporter (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the
 * default): the SDK's own HTTP export (its transport with retries and backoff, its
 * timeout, its bounded count of concurrent exports, compression as OTEL_* asks) with our
 * encoding in place of its serializer (issue 40: the serializer was two thirds of a
 * traced request's span cost). What it sends is a batch of span-batcher.ts, whose spans
 * were encoded as they ended (otlp-span-encoder.ts): the request is their bytes between
 * the resource's and the scope's, copied into the request at once, so the batch's buffer
 * is free again before the export ends. OTLP/JSON and gRPC keep the SDK's exporters
 * whole: they read the span records as ReadableSpans.
 */
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  encodeEncodedRequest,
  type EncodedSpans,
  type EncodingScope,
} from './otlp-span-encoder.js';
import type { EncodedSpansExporter } from './span-batcher.js';
import type { SignalExport } from './telemetry-config.js';

/** The SDK's name for this kind of exporter, in its own self-observability metrics. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/** What the SDK's export metrics count of a batch (its TraceExporterMetricsHelper, for our batches). */
const COUNT_SPANS = {
  name: 'span' as const,
  countItems: (spans: EncodedSpans) => spans.count,
};

export function protobufSpanExporter(
  signal: SignalExport,
  scope: EncodingScope,
): EncodedSpansExporter {
  const serializer = {
    serializeRequest: (spans: EncodedSpans) => encodeEncodedRequest(spans, scope),
    deserializeResponse: ProtobufTraceSerializer.deserializeResponse,
  };
  const delegate = createOtlpHttpExportDelegate(
    convertLegacyHttpOptions(
      { url: signal.url, headers: { ...signal.headers }, timeoutMillis: signal.timeoutMs },
      'TRACES',
      'v1/traces',
      { 'Content-Type': 'application/x-protobuf' },
    ),
    serializer,
    COMPONENT_TYPE,
    COUNT_SPANS,
    undefined,
  );
  return new OTLPExporterBase(delegate);
}
