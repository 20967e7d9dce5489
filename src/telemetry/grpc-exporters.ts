/**
 * The OTLP/gRPC exporters (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`, the collector's port 4317):
 * a module of its own so that only a gateway configured for gRPC loads @grpc/grpc-js
 * (its ~1 MB of JavaScript and its HTTP/2 client), and so that the single binary, which
 * carries no gRPC, can put a clear refusal in its place (scripts/sea-stubs/grpc-exporters.ts).
 * The npm bundle keeps these packages external (scripts/bundle-cli.mjs): loaded from
 * node_modules on first use, like the MCP client.
 */
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { SignalExport } from './telemetry-config.js';

/** What both exporters are given: the address, the timeout, the headers as gRPC metadata. */
async function grpcConfig(signal: SignalExport): Promise<{
  url: string;
  timeoutMillis: number;
  metadata: ReturnType<typeof import('@opentelemetry/otlp-grpc-exporter-base').createEmptyMetadata>;
}> {
  // The exporter's own package's factory: its Metadata is the @grpc/grpc-js the exporter uses.
  const { createEmptyMetadata } = commonJs(await import('@opentelemetry/otlp-grpc-exporter-base'));
  const metadata = createEmptyMetadata();
  for (const [key, value] of Object.entries(signal.headers)) metadata.set(key, value);
  return { url: signal.url, timeoutMillis: signal.timeoutMs, metadata };
}

/** See otel-telemetry.ts: the bundle gives a CommonJS package's `default` only. */
function commonJs<T extends object>(mod: T & { default?: T }): T {
  return mod.default ?? mod;
}

export async function grpcSpanExporter(signal: SignalExport): Promise<SpanExporter> {
  const { OTLPTraceExporter } = commonJs(await import('@opentelemetry/exporter-trace-otlp-grpc'));
  return new OTLPTraceExporter(await grpcConfig(signal));
}

export async function grpcMetricExporter(signal: SignalExport): Promise<PushMetricExporter> {
  const { OTLPMetricExporter } = commonJs(
    await import('@opentelemetry/exporter-metrics-otlp-grpc'),
  );
  return new OTLPMetricExporter(await grpcConfig(signal));
}
