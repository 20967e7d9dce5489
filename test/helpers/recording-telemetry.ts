/**
 * A real in-memory implementation of the gateway's telemetry seam (src/telemetry): it
 * keeps every span it makes (name, kind, parent, attributes, error) and renders real W3C
 * traceparents, so a test can follow a trace from what it sent to what an upstream got.
 * Our own interface, not a third party's: the OTLP export is tested with the SDK itself.
 */
import { randomBytes } from 'node:crypto';
import type { Attributes, AttributeValue, Span, SpanKind } from '../../src/telemetry/span.js';
import type { Telemetry, TraceParent } from '../../src/telemetry/telemetry.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface RecordedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  /** The span id of the parent: a recorded span's, or the caller's from its traceparent. */
  readonly parentId: string | undefined;
  readonly tracestate: string | undefined;
  readonly attributes: Record<string, AttributeValue>;
  error: string | undefined;
  ended: boolean;
}

export interface RecordingTelemetry extends Telemetry {
  readonly spans: RecordedSpan[];
  /** The spans of `name` (each one once). */
  named(name: string): RecordedSpan[];
  /** The one span named `name`; throws unless there is exactly one. */
  one(name: string): RecordedSpan;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export function recordingTelemetry(): RecordingTelemetry {
  const spans: RecordedSpan[] = [];

  function start(
    name: string,
    kind: SpanKind,
    traceId: string,
    parentId: string | undefined,
    tracestate: string | undefined,
    attributes: Attributes | undefined,
  ): Span {
    const rec: RecordedSpan = {
      name,
      kind,
      traceId,
      spanId: hex(8),
      parentId,
      tracestate,
      attributes: {},
      error: undefined,
      ended: false,
    };
    spans.push(rec);
    const span: Span = {
      recording: true,
      setAttribute(key, value) {
        if (value !== undefined) rec.attributes[key] = value;
      },
      setAttributes(attrs) {
        for (const [k, v] of Object.entries(attrs)) span.setAttribute(k, v);
      },
      fail(errorType) {
        rec.error = errorType;
        rec.attributes['error.type'] = errorType;
      },
      child: (childName, childKind, attrs) =>
        start(childName, childKind, traceId, rec.spanId, tracestate, attrs),
      traceparent: () => `00-${traceId}-${rec.spanId}-01`,
      tracestate: () => tracestate,
      end() {
        rec.ended = true;
      },
    };
    if (attributes) span.setAttributes(attributes);
    return span;
  }

  return {
    on: true,
    spans,
    serverSpan(name: string, parent: TraceParent, attributes?: Attributes): Span {
      const m = parent.traceparent ? TRACEPARENT.exec(parent.traceparent.trim()) : null;
      return m
        ? start(name, 'server', m[1]!, m[2]!, parent.tracestate, attributes)
        : start(name, 'server', hex(16), undefined, undefined, attributes);
    },
    shutdown: () => Promise.resolve(),
    named: (name) => spans.filter((s) => s.name === name),
    one(name) {
      const found = spans.filter((s) => s.name === name);
      if (found.length !== 1)
        throw new Error(
          `expected one span named ${name}, got ${found.length}: ${spans.map((s) => s.name).join(', ')}`,
        );
      return found[0]!;
    },
  };
}

/** A fresh W3C traceparent, as an agent host would send with its own span. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** The trace id and parent id a received traceparent names. */
export function parseTraceparent(tp: unknown): { traceId: string; parentId: string } | undefined {
  const m = typeof tp === 'string' ? TRACEPARENT.exec(tp) : null;
  return m ? { traceId: m[1]!, parentId: m[2]! } : undefined;
}
