/**
 * The OTLP/HTTP protobuf span exporter (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the
 * default). What it sends is a batch of span-batcher.ts, whose spans were encoded as they
 * ended (otlp-span-encoder.ts): the request is their bytes between the resource's and
 * the scope's framing. OTLP/JSON and gRPC keep the SDK's exporters whole: they read the
 * span records as ReadableSpans.
 *
 * Uncompressed (the default), the POST is ours (otlp-http-send.ts: the SDK's transport
 * and retry rules at about half its CPU a POST, issue 40), and around it what the SDK's
 * export delegate (OTLPExporterBase's) does: at most 30 exports at once, a partial
 * success logged on the diag logger, the export's result, and its otel.sdk.exporter.*
 * metrics (none are recorded: no meter provider is given, as before). With
 * OTEL_EXPORTER_OTLP_{TRACES_}COMPRESSION=gzip, a rare setting, the SDK's own HTTP export
 * delegate sends it, compression and all, with the same encoding.
 */
import { diag } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  CompressionAlgorithm,
  OTLPExporterBase,
  OTLPExporterError,
  type ExportResponse,
} from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
  createOtlpHttpExporterMetrics,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { OtlpHttpSender, tlsOptions } from './otlp-http-send.js';
import {
  encodeEncodedRequest,
  encodedRequestParts,
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

const CONTENT_TYPE = 'application/x-protobuf';

/** The SDK's default bound on exports under way (its concurrencyLimit). */
const CONCURRENCY_LIMIT = 30;

export function protobufSpanExporter(
  signal: SignalExport,
  scope: EncodingScope,
): EncodedSpansExporter {
  if (signal.compression === 'gzip') return sdkProtobufSpanExporter(signal, scope);
  return new ProtobufSpanExporter(signal, scope);
}

/**
 * The SDK's HTTP export delegate with our encoding in place of its serializer: used for
 * gzip, and by the tests as the reference our own POST is compared with. Compression
 * and the https agent's files are given from `signal` (the environment telemetry-config
 * read), so the SDK's own reading of process.env for them is overridden.
 */
export function sdkProtobufSpanExporter(
  signal: SignalExport,
  scope: EncodingScope,
): EncodedSpansExporter {
  const serializer = {
    serializeRequest: (spans: EncodedSpans) => encodeEncodedRequest(spans, scope),
    deserializeResponse: ProtobufTraceSerializer.deserializeResponse,
  };
  const delegate = createOtlpHttpExportDelegate(
    convertLegacyHttpOptions(
      {
        url: signal.url,
        headers: { ...signal.headers },
        timeoutMillis: signal.timeoutMs,
        compression:
          signal.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
        // The SDK's own agent options (it drops the files for http:).
        httpAgentOptions: { keepAlive: true, ...tlsOptions(signal.tls) },
      },
      'TRACES',
      'v1/traces',
      { 'Content-Type': CONTENT_TYPE },
    ),
    serializer,
    COMPONENT_TYPE,
    COUNT_SPANS,
    undefined,
  );
  return new OTLPExporterBase(delegate);
}

/** A collector's ExportTraceServiceResponse: a partial success is logged, as the SDK does. */
function readAnswer(data: Uint8Array): void {
  // An empty answer is full success.
  if (data.length === 0) return;
  let answer: { partialSuccess?: object } | undefined;
  try {
    answer = ProtobufTraceSerializer.deserializeResponse(data) as typeof answer;
  } catch (e) {
    diag.warn(
      'Export succeeded but could not deserialize response - is the response specification compliant?',
      e,
      data,
    );
    return;
  }
  const partial = answer?.partialSuccess;
  if (partial != null && Object.keys(partial).length > 0)
    diag.warn('Received Partial Success response:', JSON.stringify(partial));
}

/** An export's result and the error its metrics record, from the last attempt's response. */
function resultOf(response: ExportResponse): [ExportResult, Error | string | undefined] {
  switch (response.status) {
    case 'success':
      if (response.data !== undefined) readAnswer(response.data);
      return [{ code: ExportResultCode.SUCCESS }, undefined];
    case 'failure':
      return [{ code: ExportResultCode.FAILED, error: response.error }, response.error];
    case 'retryable':
      return [
        {
          code: ExportResultCode.FAILED,
          error: response.error ?? new OTLPExporterError('Export failed with retryable status'),
        },
        'export_max_retries',
      ];
  }
}

class ProtobufSpanExporter implements EncodedSpansExporter {
  private readonly sender: OtlpHttpSender;
  private readonly metrics;
  private readonly underWay = new Set<Promise<void>>();

  constructor(
    signal: SignalExport,
    private readonly scope: EncodingScope,
  ) {
    this.sender = new OtlpHttpSender({
      url: signal.url,
      headers: signal.headers,
      timeoutMs: signal.timeoutMs,
      contentType: CONTENT_TYPE,
      tls: signal.tls,
    });
    this.metrics = createOtlpHttpExporterMetrics(
      COMPONENT_TYPE,
      COUNT_SPANS,
      signal.url,
      undefined,
    );
  }

  export(spans: EncodedSpans, done: (result: ExportResult) => void): void {
    if (this.underWay.size >= CONCURRENCY_LIMIT) {
      done({ code: ExportResultCode.FAILED, error: new Error('Concurrent export limit reached') });
      return;
    }
    // The batch's own bytes are sent, not a copy: the batcher reuses its buffer only
    // once `done` is called, after the last attempt (span-batcher.ts).
    const body = encodedRequestParts(spans, this.scope);
    const finish = this.metrics.startExport(spans);
    const exported = this.sender.send(body).then(
      (response) => {
        const [result, error] = resultOf(response);
        finish(error);
        done(result);
      },
      (reason: Error) => {
        finish(reason);
        done({ code: ExportResultCode.FAILED, error: reason });
      },
    );
    this.underWay.add(exported);
    const settled = (): void => void this.underWay.delete(exported);
    exported.then(settled, settled);
  }

  /** Waits for the exports under way, then closes the connections. */
  async shutdown(): Promise<void> {
    await Promise.all(this.underWay);
    this.sender.close();
  }
}
