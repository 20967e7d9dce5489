/**
 * OTLP over gRPC in the single executable, in place of src/telemetry/grpc-exporters.ts:
 * @grpc/grpc-js is not in the binary, so a gateway configured for it stops at start-up
 * with a StartupError that says what to use instead, rather than exporting nothing.
 */
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { StartupError } from '../../src/process/startup-error.js';

function refused(): StartupError {
  return new StartupError(
    'OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs the npm package; the single executable exports OTLP over HTTP only: use http/protobuf (the collector port 4318)',
  );
}

export async function grpcSpanExporter(): Promise<SpanExporter> {
  throw refused();
}

export async function grpcMetricExporter(): Promise<PushMetricExporter> {
  throw refused();
}
