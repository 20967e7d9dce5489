/**
 * The batch span processor of OTLP/HTTP protobuf export, the default protocol (issue 40):
 * each span is encoded to its OTLP/protobuf Span message when it ends
 * (otlp-span-encoder.ts, `encodeSpanInto`), into the buffer of the batch it will be
 * exported in, so nothing of a span outlives its request but bytes outside the heap.
 * The SDK's BatchSpanProcessor kept every ended span record alive until its export: up to
 * 512 records with their arrays and id strings, copied by each young-generation
 * collection until promoted, and the garbage collector's share was the largest single
 * part of what a traced request cost beyond its spans (bench/RESULTS.md).
 *
 * Its rules are the SDK's BatchSpanProcessor's, from the same OTEL_BSP_* settings
 * (telemetry-config.ts): at most `maxQueueSize` spans wait, and a span beyond is dropped
 * and counted; an export starts as soon as `maxExportBatchSize` spans wait, else
 * `scheduledDelayMs` after the first span waits; one export at a time, each of at most
 * `maxExportBatchSize` spans, the oldest first, and given up on (the next may start) after
 * `exportTimeoutMs`; forceFlush exports everything waiting, in batches, at once; shutdown
 * flushes, then shuts the exporter down, and spans ending after it are not taken.
 * OTLP/JSON and gRPC keep the SDK's BatchSpanProcessor and exporters (otel-telemetry.ts).
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { EncodedSpans, encodeSpanInto } from './otlp-span-encoder.js';
import type { EndedSpans, RecordedSpan } from './span-recorder.js';
import type { BatchConfig } from './telemetry-config.js';

/**
 * Sends one batch. It may read the batch's bytes until it calls back, and not after:
 * the batcher reuses the buffer after the callback, never before, even when it has given
 * up waiting (otlp-span-exporter.ts writes the batch's own bytes to the socket, no copy).
 */
export interface EncodedSpansExporter {
  export(spans: EncodedSpans, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

/** A batch's first buffer: 512 spans of a traced call take about 200 KB, it doubles to fit. */
const INITIAL_BYTES = 64 * 1024;
/** Emptied buffers kept for the next batches; the queue holds at most a few batches anyway. */
const SPARE_BUFFERS = 2;

export class SpanBatcher implements EndedSpans {
  /** Batches of exactly maxExportBatchSize spans, oldest first, waiting behind none. */
  private readonly full: EncodedSpans[] = [];
  /** The batch spans are being added to: never full. */
  private current = new EncodedSpans(INITIAL_BYTES);
  private readonly spare: EncodedSpans[] = [];
  /** Spans waiting, in `full` and `current`. */
  private waiting = 0;
  private droppedSpans = 0;
  private exporting = false;
  private timer: NodeJS.Timeout | undefined = undefined;
  private stopped: Promise<void> | undefined = undefined;

  constructor(
    private readonly exporter: EncodedSpansExporter,
    private readonly config: BatchConfig,
  ) {}

  /** Spans dropped because the queue was full, since start. */
  get dropped(): number {
    return this.droppedSpans;
  }

  onEnd(span: RecordedSpan): void {
    if (this.stopped) return;
    if (this.waiting >= this.config.maxQueueSize) {
      this.droppedSpans++;
      return;
    }
    encodeSpanInto(span, this.current);
    this.waiting++;
    if (this.current.count >= this.config.maxExportBatchSize) {
      this.full.push(this.current);
      this.current = this.spare.pop() ?? new EncodedSpans(INITIAL_BYTES);
    }
    this.maybeStartTimer();
  }

  /** Exports everything waiting now, in batches, all at once. */
  forceFlush(): Promise<void> {
    if (this.stopped) return this.stopped;
    return this.flushAll();
  }

  shutdown(): Promise<void> {
    this.stopped ??= this.flushAll().then(() => this.exporter.shutdown());
    return this.stopped;
  }

  private flushAll(): Promise<void> {
    const batches = this.full.length + (this.current.count > 0 ? 1 : 0);
    const exports: Promise<void>[] = [];
    for (let i = 0; i < batches; i++) exports.push(this.exportOne());
    return Promise.all(exports).then(() => undefined);
  }

  private maybeStartTimer(): void {
    if (this.exporting) return;
    if (this.waiting >= this.config.maxExportBatchSize) {
      this.flush();
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), this.config.scheduledDelayMs);
    this.timer.unref();
  }

  /** One export, then the next batch's turn (at once when one is full, else on the timer). */
  private flush(): void {
    this.exporting = true;
    const next = (): void => {
      this.exporting = false;
      if (this.waiting > 0) {
        this.clearTimer();
        this.maybeStartTimer();
      }
    };
    // A failed export is the exporter's to report (otel-telemetry.ts logs the first one).
    this.exportOne().then(next, next);
  }

  /** The oldest batch (the one being filled when none is full), exported. */
  private exportOne(): Promise<void> {
    this.clearTimer();
    if (this.waiting === 0) return Promise.resolve();
    const batch = this.full.shift() ?? this.takeCurrent();
    this.waiting -= batch.count;
    return new Promise<void>((resolve, reject) => {
      // Not waited for beyond the timeout: the next batch may start.
      const timeout = setTimeout(
        () => reject(new Error('span export timed out')),
        this.config.exportTimeoutMs,
      );
      timeout.unref();
      this.exporter.export(batch, (result) => {
        clearTimeout(timeout);
        this.reuse(batch);
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(result.error ?? new Error('span export failed'));
      });
    });
  }

  private takeCurrent(): EncodedSpans {
    const batch = this.current;
    this.current = this.spare.pop() ?? new EncodedSpans(INITIAL_BYTES);
    return batch;
  }

  private reuse(batch: EncodedSpans): void {
    batch.clear();
    if (this.spare.length < SPARE_BUFFERS) this.spare.push(batch);
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
