/**
 * A span as the gateway's code sees it (issue 30, OpenTelemetry): what a projection or a
 * backend may do with the span of its request, whatever makes it. With telemetry off
 * every span is NO_SPAN, one frozen object whose methods do nothing and allocate
 * nothing, so the request path pays a property read and a call per step, and no
 * OpenTelemetry package is loaded (telemetry.ts).
 */

/** What an attribute may hold; `undefined` leaves it unset. */
export type AttributeValue = string | number | boolean;

export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The span kinds the gateway makes: its requests (server) and what it sends upstream (client). */
export type SpanKind = 'server' | 'client' | 'internal';

export interface Span {
  /** False for NO_SPAN: a caller may skip building attributes it would only drop. */
  readonly recording: boolean;
  /**
   * The trace's id (32 lowercase hex digits), where the span knows it: a call that
   * continues a recording span's trace takes it from here rather than parse the span's
   * own traceparent back (issue 40). Absent on NO_SPAN.
   */
  readonly traceId?: string;
  setAttribute(key: string, value: AttributeValue | undefined): void;
  setAttributes(attributes: Attributes): void;
  /**
   * The answer was a refusal or a failure: `error.type` is the catalogue code (or the
   * JSON-RPC code's name) and the span's status is an error.
   */
  fail(errorType: string): void;
  /** A span of work this one does (an upstream call, a wait), started now. */
  child(name: string, kind: SpanKind, attributes?: Attributes): Span;
  /**
   * The W3C traceparent naming this span, to inject into the request it stands for;
   * undefined when not recording (the caller then sends what it sent before).
   */
  traceparent(): string | undefined;
  /** The W3C tracestate to pass on with it, if the trace carries one. */
  tracestate(): string | undefined;
  end(): void;
}

/** The span of everything when telemetry is off. */
export const NO_SPAN: Span = Object.freeze({
  recording: false,
  setAttribute() {},
  setAttributes() {},
  fail() {},
  child: () => NO_SPAN,
  traceparent: () => undefined,
  tracestate: () => undefined,
  end() {},
});
