/**
 * Telemetry exported over OTLP (docs/observability.md, "A collector that is down"): the
 * one module that wires the OpenTelemetry SDK, and only load-telemetry.ts imports this
 * one, when OTLP export is on. Spans are made by our code, never by auto-instrumentation
 * (which cannot see the single binary's bundled modules), and recorded by our own
 * recorder (span-recorder.ts), not the SDK's tracer: the parent of a server span is the
 * caller's W3C traceparent, passed in, not an ambient context, so no context manager is
 * installed. From the SDK: the batch span processor, the exporters (http/protobuf with
 * our encoder), the resource, and the metrics pipeline.
 *
 * Export is batched and bounded (BatchSpanProcessor's queue drops beyond its size), and
 * a collector that is down costs the telemetry, never a call: the exporters are watched,
 * and the log says once per signal when export starts failing and once when it is back.
 */
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricProducer,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import type { Logger } from 'pino';
import { NO_SPAN, type Attributes, type Span } from './span.js';
import type { Telemetry, TraceParent } from './telemetry.js';
import { packageVersion } from './package-version.js';
import { resourceOf } from './otel-resource.js';
import type { EncodingScope } from './otlp-span-encoder.js';
import { SpanRecorder, type EndedSpans } from './span-recorder.js';
import type { OtlpProtocol, SignalExport, TelemetryConfig } from './telemetry-config.js';

export type TelemetryLog = Pick<Logger, 'info' | 'warn'>;

export interface OtelTelemetryOptions {
  readonly log?: TelemetryLog;
  /**
   * Where OTLP metrics come from: the prom-client registry read as OTel data, so
   * /metrics and OTLP show the same histograms with no second bookkeeping. Without
   * one, no metric reader is started (the gateway records no OTel instruments of its own).
   */
  readonly metricProducer?: MetricProducer;
}

/** How long shutdown waits for the last batch: a collector that is down loses it. */
const SHUTDOWN_BOUND_MS = 2_000;

const SCOPE = 'mcp-beaver';

interface Exporter<T> {
  export(items: T, done: (result: ExportResult) => void): void;
}

/**
 * Logs the transitions of a signal's export, not each export: the first failure
 * (telemetry is being dropped), and the first success after failures.
 */
function watchExports<T, E extends Exporter<T>>(
  exporter: E,
  signal: 'traces' | 'metrics',
  url: string,
  log: TelemetryLog | undefined,
): E {
  let failing = false;
  const original = exporter.export.bind(exporter);
  exporter.export = (items: T, done: (result: ExportResult) => void) =>
    original(items, (result) => {
      const ok = result.code === ExportResultCode.SUCCESS;
      if (!ok && !failing) {
        failing = true;
        // The error says what failed (a status, a refused connection); never the headers.
        log?.warn(
          { otlp: signal, url, err: result.error?.message },
          `OTLP ${signal} export failing: ${signal} are dropped until the collector answers`,
        );
      } else if (ok && failing) {
        failing = false;
        log?.info({ otlp: signal, url }, `OTLP ${signal} export recovered`);
      }
      done(result);
    });
  return exporter;
}

type ExporterClass<E> = new (config: {
  url: string;
  headers: Record<string, string>;
  timeoutMillis: number;
}) => E;

/**
 * The exports of a dynamically imported CommonJS package. Node gives its named exports
 * and `default` (module.exports); the bundle (scripts/bundle-cli.mjs: esbuild splits
 * at dynamic imports) gives `default` only, so a destructured name was undefined there
 * and `serve --otlp` from dist/cli/main.js failed to start ("OTLPTraceExporter is not a
 * constructor").
 */
function commonJs<T extends object>(mod: T & { default?: T }): T {
  return mod.default ?? mod;
}

/** An OTLP/HTTP exporter of the class `load` imports. */
function overHttp<E>(load: () => Promise<ExporterClass<E>>) {
  return async (signal: SignalExport): Promise<E> => {
    const Exporter = await load();
    return new Exporter({
      url: signal.url,
      headers: { ...signal.headers },
      timeoutMillis: signal.timeoutMs,
    });
  };
}

/** A signal's exporter by protocol: only the configured protocol's package is loaded. */
type Exporters<E> = Readonly<Record<OtlpProtocol, (signal: SignalExport) => Promise<E>>>;

/**
 * The SDK's span exporters, for OTLP/JSON and gRPC: they read our span records as
 * ReadableSpans. http/protobuf has a pipeline of its own (spanPipeline).
 */
const SDK_TRACE_EXPORTERS: Readonly<
  Record<Exclude<OtlpProtocol, 'http/protobuf'>, (signal: SignalExport) => Promise<SpanExporter>>
> = {
  'http/json': overHttp(
    async () => commonJs(await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter,
  ),
  grpc: async (signal) => (await import('./grpc-exporters.js')).grpcSpanExporter(signal),
};

const METRIC_EXPORTERS: Exporters<PushMetricExporter> = {
  'http/json': overHttp(
    async () =>
      commonJs(await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter,
  ),
  'http/protobuf': overHttp(
    async () =>
      commonJs(await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter,
  ),
  grpc: async (signal) => (await import('./grpc-exporters.js')).grpcMetricExporter(signal),
};

/** The exporter of one signal, of its configured protocol, watched. */
async function exporterOf<T, E extends Exporter<T>>(
  signal: SignalExport,
  name: 'traces' | 'metrics',
  exporters: Exporters<E>,
  log: TelemetryLog | undefined,
): Promise<E> {
  return watchExports(await exporters[signal.protocol](signal), name, signal.url, log);
}

/**
 * The SDK leaves out a TLS file it cannot read with a line on its own diag logger, which
 * nobody installs; the export then fails at the collector's handshake with no word of
 * why. Said here at start, on the gateway's log: the variable and the path, never the
 * file's bytes.
 */
function warnUnreadableTls(signal: SignalExport, log: TelemetryLog | undefined): void {
  const files: [string, string | undefined][] = [
    ['OTEL_EXPORTER_OTLP_CERTIFICATE', signal.tls?.certificate],
    ['OTEL_EXPORTER_OTLP_CLIENT_KEY', signal.tls?.clientKey],
    ['OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE', signal.tls?.clientCertificate],
  ];
  for (const [variable, path] of files) {
    if (path === undefined) continue;
    try {
      accessSync(resolve(process.cwd(), path), constants.R_OK);
    } catch (err) {
      log?.warn(
        { otlp: 'traces', variable, path, err: (err as NodeJS.ErrnoException).code },
        `OTLP traces: ${variable} (or its _TRACES_ form) names ${path}, which cannot be read: the export goes without it`,
      );
    }
  }
}

/** Where ended spans go until they are exported, and how the last of them are flushed. */
type SpanPipeline = EndedSpans & { shutdown(): Promise<void> };

/**
 * http/protobuf: each span encoded as it ends into its batch's bytes, and the batch sent
 * by the SDK's HTTP export (span-batcher.ts, otlp-span-exporter.ts). JSON and gRPC: the
 * SDK's batch processor and exporters, from the same OTEL_BSP_* settings.
 */
async function spanPipeline(
  config: TelemetryConfig,
  signal: SignalExport,
  scope: EncodingScope,
  log: TelemetryLog | undefined,
): Promise<SpanPipeline> {
  if (signal.protocol === 'http/protobuf') {
    const [{ protobufSpanExporter }, { SpanBatcher }] = await Promise.all([
      import('./otlp-span-exporter.js'),
      import('./span-batcher.js'),
    ]);
    warnUnreadableTls(signal, log);
    const exporter = watchExports(protobufSpanExporter(signal, scope), 'traces', signal.url, log);
    return new SpanBatcher(exporter, config.batch);
  }
  return new BatchSpanProcessor({
    exporter: watchExports(
      await SDK_TRACE_EXPORTERS[signal.protocol](signal),
      'traces',
      signal.url,
      log,
    ),
    maxQueueSize: config.batch.maxQueueSize,
    maxExportBatchSize: config.batch.maxExportBatchSize,
    scheduledDelayMillis: config.batch.scheduledDelayMs,
    exportTimeoutMillis: config.batch.exportTimeoutMs,
  });
}

export async function createOtelTelemetry(
  config: TelemetryConfig,
  opts: OtelTelemetryOptions = {},
): Promise<Telemetry> {
  const resource = resourceOf(config, await packageVersion());

  let spans: SpanPipeline | undefined;
  let recorder: SpanRecorder | undefined;
  if (config.traces) {
    const scope: EncodingScope = {
      resourceAttributes: resource.attributes,
      resourceSchemaUrl: resource.schemaUrl,
      scopeName: SCOPE,
    };
    spans = await spanPipeline(config, config.traces, scope, opts.log);
    recorder = new SpanRecorder({
      sampler: config.sampler,
      resource,
      scope: SCOPE,
      ended: spans,
    });
  }

  let meterProvider: MeterProvider | undefined;
  if (config.metrics && opts.metricProducer) {
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: await exporterOf(config.metrics, 'metrics', METRIC_EXPORTERS, opts.log),
          exportIntervalMillis: config.metricIntervalMs,
          exportTimeoutMillis: config.metricTimeoutMs,
          metricProducers: [opts.metricProducer],
        }),
      ],
    });
  }

  let stopped: Promise<void> | undefined;
  return {
    on: true,
    serverSpan(
      name: string,
      parent: TraceParent,
      attributes?: Attributes,
      startTime?: number,
    ): Span {
      // Metrics only (no traces endpoint): requests carry the span that does nothing.
      if (!recorder) return NO_SPAN;
      // An absent or malformed traceparent starts a new trace.
      return recorder.serverSpan(parent, name, attributes, startTime);
    },
    shutdown(): Promise<void> {
      stopped ??= (async () => {
        const bound = new Promise<void>((resolve) =>
          setTimeout(resolve, SHUTDOWN_BOUND_MS).unref(),
        );
        await Promise.race([
          Promise.allSettled([spans?.shutdown(), meterProvider?.shutdown()]),
          bound,
        ]);
      })();
      return stopped;
    },
  };
}
