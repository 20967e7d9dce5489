/**
 * The gateway's spans when traces are exported (issue 40): recorded by our own code, not
 * by the SDK's Span class. What a span holds is what the gateway sets — a name, a kind,
 * its trace context, two times, a few attributes, an error status — and that is all this
 * records: plain fields and two arrays, no Context objects, no HrTime pairs, no
 * attribute validation (our attributes are typed; the SDK checked each value three
 * times), and the OTLP encoder (otlp-span-encoder.ts) reads the fields as they are.
 *
 * What the SDK did and this keeps: the sampler of OTEL_TRACES_SAMPLER (trace-sampler.ts),
 * with parent-based sampling of a remote and of a local parent; the W3C traceparent and
 * tracestate read by the SDK's own parser (core's parseTraceParent and TraceState); a new
 * span id for a span sampled out, its flags saying so; at most 128 attributes a span (the
 * SDK's default limit), the rest counted as dropped; ended once. A recorded span is also
 * a ReadableSpan (the getters at the end of RecordedSpan), so the SDK's batch processor
 * queues it and its OTLP/JSON and gRPC exporters send it unchanged.
 */
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { HrTime, SpanContext } from '@opentelemetry/api';
import { parseTraceParent, TraceState } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Attributes, AttributeValue, Span, SpanKind } from './span.js';
import type { TraceParent } from './telemetry.js';
import type { SamplerConfig } from './telemetry-config.js';
import { sampled } from './trace-sampler.js';

/** The SDK's default span attribute count limit: beyond it a new key is dropped and counted. */
export const ATTRIBUTE_COUNT_LIMIT = 128;

/** The API's SpanKind numbers (OTLP's are one more). */
const API_KINDS: Readonly<Record<SpanKind, number>> = { internal: 0, server: 1, client: 2 };

/** Where a span's trace continues from: a caller's traceparent or a span of ours. */
export interface ParentContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote: boolean;
  readonly traceState: TraceState | undefined;
}

/** Where ended sampled spans go: the SDK's BatchSpanProcessor. */
export interface EndedSpans {
  onEnd(span: RecordedSpan): void;
}

export interface RecorderOptions {
  readonly sampler: SamplerConfig;
  readonly resource: Resource;
  /** The instrumentation scope's name. */
  readonly scope: string;
  readonly ended: EndedSpans;
}

// ---- ids ---------------------------------------------------------------------------

/** Random bytes for ids, drawn a pool at a time: one system call for ~170 spans. */
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;

function randomId(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const start = poolAt;
  poolAt += bytes;
  // An id of zeros is invalid: its last byte becomes 1 (as the SDK's generator does).
  let zero = true;
  for (let i = start; i < poolAt; i++)
    if (pool[i] !== 0) {
      zero = false;
      break;
    }
  if (zero) pool[poolAt - 1] = 1;
  return pool.toString('hex', start, poolAt);
}

// ---- time --------------------------------------------------------------------------

const ORIGIN = performance.timeOrigin;
/**
 * The wall clock minus the monotonic one, read again once a second: a span's times are
 * the monotonic clock's (its duration exact) placed on the wall clock as the SDK places
 * them, without a Date.now() per span.
 */
let wallOffset = 0;
let wallOffsetAt = -Infinity;

function epochMs(perfNow: number): number {
  if (perfNow - wallOffsetAt > 1000 || perfNow < wallOffsetAt) {
    const now = performance.now();
    wallOffset = Date.now() - (ORIGIN + now);
    wallOffsetAt = now;
  }
  return ORIGIN + wallOffset + perfNow;
}

function hrTimeOf(ms: number): HrTime {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

// ---- spans -------------------------------------------------------------------------

/** A span sampled out: it records nothing and passes its trace context on. */
class PassedOnSpan implements Span, ParentContext {
  readonly recording = false;
  readonly traceFlags = 0;
  readonly isRemote = false;
  constructor(
    private readonly recorder: SpanRecorder,
    readonly traceId: string,
    readonly spanId: string,
    readonly traceState: TraceState | undefined,
  ) {}
  setAttribute(): void {}
  setAttributes(): void {}
  fail(): void {}
  child(name: string, kind: SpanKind, attributes?: Attributes): Span {
    return this.recorder.start(name, kind, this, attributes, undefined);
  }
  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-00`;
  }
  tracestate(): string | undefined {
    return this.traceState?.serialize() || undefined;
  }
  end(): void {}
}

/** A sampled span, recorded until it ends, then queued for export. */
export class RecordedSpan implements Span, ParentContext, ReadableSpan {
  readonly recording = true;
  readonly traceFlags = 1;
  readonly isRemote = false;
  readonly attributeKeys: string[] = [];
  readonly attributeValues: AttributeValue[] = [];
  droppedAttributes = 0;
  statusCode = 0;
  readonly startMs: number;
  endMs = 0;
  private readonly startPerf: number;
  private isEnded = false;
  private stateText: string | undefined = undefined;

  constructor(
    private readonly recorder: SpanRecorder,
    readonly name: string,
    readonly kind: number,
    readonly traceId: string,
    readonly spanId: string,
    private readonly parent: ParentContext | undefined,
    readonly traceState: TraceState | undefined,
    /** A performance.now() reading, when the span began before it was made. */
    startTime: number | undefined,
  ) {
    this.startPerf = startTime ?? performance.now();
    this.startMs = epochMs(this.startPerf);
  }

  setAttribute(key: string, value: AttributeValue | undefined): void {
    if (value === undefined || this.isEnded || key.length === 0) return;
    const keys = this.attributeKeys;
    // A key set again replaces its value: our spans hold a dozen keys at most.
    const at = keys.indexOf(key);
    if (at >= 0) {
      this.attributeValues[at] = value;
      return;
    }
    if (keys.length >= ATTRIBUTE_COUNT_LIMIT) {
      this.droppedAttributes++;
      return;
    }
    keys.push(key);
    this.attributeValues.push(value);
  }

  setAttributes(attributes: Attributes): void {
    const keys = this.attributeKeys;
    if (keys.length > 0 || this.isEnded) {
      for (const key in attributes) this.setAttribute(key, attributes[key]);
      return;
    }
    // A span's first attributes are one object's, whose keys are distinct: none is looked
    // for among those before it (the span's first set is also its largest).
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined || key.length === 0) continue;
      if (keys.length >= ATTRIBUTE_COUNT_LIMIT) {
        this.droppedAttributes++;
        continue;
      }
      keys.push(key);
      this.attributeValues.push(value);
    }
  }

  fail(errorType: string): void {
    this.setAttribute('error.type', errorType);
    if (!this.isEnded) this.statusCode = 2;
  }

  child(name: string, kind: SpanKind, attributes?: Attributes): Span {
    return this.recorder.start(name, kind, this, attributes, undefined);
  }

  traceparent(): string {
    return `00-${this.traceId}-${this.spanId}-01`;
  }

  tracestate(): string | undefined {
    return this.traceStateText || undefined;
  }

  end(): void {
    if (this.isEnded) return;
    this.isEnded = true;
    // A start given later than now (a clock read out of order) ends where it began.
    this.endMs = this.startMs + Math.max(0, performance.now() - this.startPerf);
    this.recorder.ended.onEnd(this);
  }

  // ---- what the encoder reads (otlp-span-encoder.ts) ----

  get otlpKind(): number {
    return this.kind + 1;
  }
  get parentSpanId(): string | undefined {
    return this.parent?.spanId;
  }
  get parentIsRemote(): boolean {
    return this.parent?.isRemote === true;
  }
  /** Serialized once: the encoder reads it twice, a traced upstream call once more. */
  get traceStateText(): string {
    this.stateText ??= this.traceState?.serialize() ?? '';
    return this.stateText;
  }

  // ---- ReadableSpan: what the SDK's batch processor and its JSON and gRPC exporters read ----

  /** Read by the batch processor for every span (its flags): one plain object, no spread. */
  spanContext(): SpanContext {
    return {
      traceId: this.traceId,
      spanId: this.spanId,
      traceFlags: this.traceFlags,
      traceState: this.traceState,
    };
  }
  get parentSpanContext(): SpanContext | undefined {
    const p = this.parent;
    if (p === undefined) return undefined;
    return {
      traceId: p.traceId,
      spanId: p.spanId,
      traceFlags: p.traceFlags,
      ...(p.isRemote && { isRemote: true }),
      ...(p.traceState && { traceState: p.traceState }),
    };
  }
  get startTime(): HrTime {
    return hrTimeOf(this.startMs);
  }
  get endTime(): HrTime {
    return hrTimeOf(this.endMs);
  }
  get duration(): HrTime {
    return hrTimeOf(this.endMs - this.startMs);
  }
  get status(): { code: number } {
    return { code: this.statusCode };
  }
  get attributes(): Record<string, AttributeValue> {
    const out: Record<string, AttributeValue> = {};
    this.attributeKeys.forEach((key, i) => (out[key] = this.attributeValues[i]!));
    return out;
  }
  get links(): [] {
    return [];
  }
  get events(): [] {
    return [];
  }
  get ended(): boolean {
    return this.isEnded;
  }
  get resource(): Resource {
    return this.recorder.resource;
  }
  get instrumentationScope(): { name: string } {
    return this.recorder.scope;
  }
  get droppedAttributesCount(): number {
    return this.droppedAttributes;
  }
  get droppedEventsCount(): number {
    return 0;
  }
  get droppedLinksCount(): number {
    return 0;
  }
}

/** Makes the spans: a server span from a request's trace context, children from a span. */
export class SpanRecorder {
  readonly resource: Resource;
  readonly scope: { name: string };
  readonly ended: EndedSpans;
  private readonly sampler: SamplerConfig;

  constructor(options: RecorderOptions) {
    this.resource = options.resource;
    this.scope = { name: options.scope };
    this.ended = options.ended;
    this.sampler = options.sampler;
  }

  /**
   * A SERVER span, the child of the caller's traceparent when it is valid (else a new
   * trace; a tracestate without a valid traceparent is ignored, as the SDK's propagator
   * ignores it).
   */
  serverSpan(parent: TraceParent, name: string, attributes?: Attributes, startTime?: number): Span {
    return this.start(name, 'server', remoteParent(parent), attributes, startTime);
  }

  start(
    name: string,
    kind: SpanKind,
    parent: ParentContext | undefined,
    attributes: Attributes | undefined,
    startTime: number | undefined,
  ): Span {
    const spanId = randomId(8);
    const traceId = parent?.traceId ?? randomId(16);
    const traceState = parent?.traceState;
    if (!sampled(this.sampler, parent, traceId))
      return new PassedOnSpan(this, traceId, spanId, traceState);
    const span = new RecordedSpan(
      this,
      name,
      API_KINDS[kind],
      traceId,
      spanId,
      parent,
      traceState,
      startTime,
    );
    if (attributes) span.setAttributes(attributes);
    return span;
  }
}

/** The caller's trace context, when its traceparent is valid W3C trace context. */
export function remoteParent(parent: TraceParent): ParentContext | undefined {
  if (!parent.traceparent) return undefined;
  const context = parseTraceParent(parent.traceparent);
  if (!context) return undefined;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    isRemote: true,
    traceState: parent.tracestate ? new TraceState(parent.tracestate) : undefined,
  };
}
