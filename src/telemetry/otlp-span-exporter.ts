/**
 * The OTLP/HTTP protobuf span exporter (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the
 * default): the SDK's own HTTP export (its transport with retries and backoff, its
 * timeout, its bounded count of concurrent exports, compression as OTEL_* asks) with our
 * encoder in place of its serializer (otlp-span-encoder.ts: issue 40, the serializer was
 * two thirds of a traced request's span cost). OTLP/JSON and gRPC keep the SDK's
 * exporters whole: they read the same span records as ReadableSpans.
 */
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { encodeTraceRequest, type EncodingScope } from './otlp-span-encoder.js';
import type { RecordedSpan } from './span-recorder.js';
import type { SignalExport } from './telemetry-config.js';

/** The SDK's name for this kind of exporter, in its own self-observability metrics. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/** What the SDK's export metrics count of a batch (its TraceExporterMetricsHelper, for our records). */
const COUNT_SPANS = {
  name: 'span' as const,
  countItems: (spans: readonly RecordedSpan[]) => spans.length,
};

export function protobufSpanExporter(signal: SignalExport, scope: EncodingScope): SpanExporter {
  const serializer = {
    serializeRequest: (spans: readonly RecordedSpan[]) => encodeTraceRequest(spans, scope),
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
  // The batch processor hands over what the recorder queued: our span records.
  return new OTLPExporterBase(delegate) as unknown as SpanExporter;
}
