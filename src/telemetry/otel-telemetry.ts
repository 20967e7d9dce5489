/**
 * Telemetry made by the OpenTelemetry SDK (docs/observability.md, "A collector that is
 * down"): the one module that imports it, and only load-telemetry.ts imports this one,
 * when OTLP export is on. Spans are made by our code, never by auto-instrumentation
 * (which cannot see the single binary's bundled modules); the parent of a server span is
 * the caller's W3C traceparent, passed in, not an ambient context, so no context manager
 * is installed.
 *
 * Export is batched and bounded (BatchSpanProcessor's queue drops beyond its size), and
 * a collector that is down costs the telemetry, never a call: the exporters are watched,
 * and the log says once per signal when export starts failing and once when it is back.
 */
import {
  ROOT_CONTEXT,
  SpanKind as OtelSpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  trace,
  type Context,
  type Span as OtelSpan,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import {
  ExportResultCode,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricProducer,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import type { Logger } from 'pino';
import { NO_SPAN, type Attributes, type AttributeValue, type Span, type SpanKind } from './span.js';
import type { Telemetry, TraceParent } from './telemetry.js';
import { packageVersion } from './package-version.js';
import { resourceOf } from './otel-resource.js';
import type {
  OtlpProtocol,
  SamplerConfig,
  SignalExport,
  TelemetryConfig,
} from './telemetry-config.js';

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

const KINDS: Readonly<Record<SpanKind, OtelSpanKind>> = {
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  internal: OtelSpanKind.INTERNAL,
};

/**
 * Our attributes go to the SDK as they are, their undefined values too: the SDK copies
 * what it is given (sanitizeAttributes) and its setAttribute skips a null or undefined
 * value, so an unset attribute never reaches a span. Copying them without the undefined
 * ones first was a second object and an entries array per span (issue 40).
 */
const asOtel = (attributes: Attributes): Record<string, AttributeValue> =>
  attributes as Record<string, AttributeValue>;

/** `traceFlags` as the two hex digits of a traceparent: sampled or not, nearly always. */
const flagsHex = (flags: number): string =>
  flags === 1 ? '01' : flags === 0 ? '00' : flags.toString(16).padStart(2, '0');

/** One OTel span behind the gateway's Span. */
class SdkSpan implements Span {
  readonly recording: boolean;
  /** The context of this span's children, made on the first child. */
  private asParent: Context | undefined = undefined;
  constructor(
    private readonly tracer: Tracer,
    private readonly span: OtelSpan,
  ) {
    this.recording = span.isRecording();
  }
  setAttribute(key: string, value: AttributeValue | undefined): void {
    if (value !== undefined) this.span.setAttribute(key, value);
  }
  setAttributes(attributes: Attributes): void {
    this.span.setAttributes(asOtel(attributes));
  }
  fail(errorType: string): void {
    this.span.setAttribute('error.type', errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  child(name: string, kind: SpanKind, attributes?: Attributes): Span {
    this.asParent ??= trace.setSpan(ROOT_CONTEXT, this.span);
    return startSpan(this.tracer, name, kind, attributes, this.asParent);
  }
  /**
   * Also for a span sampled out: the trace goes on upstream with its flags saying so,
   * as W3C trace context asks of an intermediary.
   */
  traceparent(): string | undefined {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return `00-${traceId}-${spanId}-${flagsHex(traceFlags)}`;
  }
  tracestate(): string | undefined {
    return this.span.spanContext().traceState?.serialize() || undefined;
  }
  end(): void {
    this.span.end();
  }
}

/** A span begun under `parent`, a child span or a server span alike. */
function startSpan(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Attributes | undefined,
  parent: Context,
  /** A performance.now() reading: the SDK reads one below its time origin as such. */
  startTime?: number,
): Span {
  const options: SpanOptions = { kind: KINDS[kind] };
  if (attributes) options.attributes = asOtel(attributes);
  if (startTime !== undefined) options.startTime = startTime;
  return new SdkSpan(tracer, tracer.startSpan(name, options, parent));
}

function sampler(config: SamplerConfig): Sampler {
  const root =
    config.root === 'always_off'
      ? new AlwaysOffSampler()
      : config.root === 'traceidratio'
        ? new TraceIdRatioBasedSampler(config.ratio)
        : new AlwaysOnSampler();
  return config.parentBased ? new ParentBasedSampler({ root }) : root;
}

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

const TRACE_EXPORTERS: Exporters<SpanExporter> = {
  'http/json': overHttp(
    async () => commonJs(await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter,
  ),
  'http/protobuf': overHttp(
    async () =>
      commonJs(await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter,
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

export async function createOtelTelemetry(
  config: TelemetryConfig,
  opts: OtelTelemetryOptions = {},
): Promise<Telemetry> {
  const resource = resourceOf(config, await packageVersion());
  const propagator = new W3CTraceContextPropagator();

  let tracerProvider: TracerProvider | undefined;
  if (config.traces) {
    tracerProvider = new TracerProvider({
      resource,
      sampler: sampler(config.sampler),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: await exporterOf(config.traces, 'traces', TRACE_EXPORTERS, opts.log),
          maxQueueSize: config.batch.maxQueueSize,
          maxExportBatchSize: config.batch.maxExportBatchSize,
          scheduledDelayMillis: config.batch.scheduledDelayMs,
          exportTimeoutMillis: config.batch.exportTimeoutMs,
        }),
      ],
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

  const tracer = tracerProvider?.getTracer(SCOPE);
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
      if (!tracer) return NO_SPAN;
      // An absent or malformed traceparent extracts nothing: the span starts a new trace.
      // Without one there is nothing to read (tracestate alone is ignored, as the
      // propagator ignores it), so the request skips the carrier and the extract.
      const context =
        parent.traceparent === undefined
          ? ROOT_CONTEXT
          : propagator.extract(ROOT_CONTEXT, parent, defaultTextMapGetter);
      return startSpan(tracer, name, 'server', attributes, context, startTime);
    },
    shutdown(): Promise<void> {
      stopped ??= (async () => {
        const bound = new Promise<void>((resolve) =>
          setTimeout(resolve, SHUTDOWN_BOUND_MS).unref(),
        );
        await Promise.race([
          Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]),
          bound,
        ]);
      })();
      return stopped;
    },
  };
}
