/**
 * A grant's upstream call as a span (docs/observability.md, "Spans"): the backend
 * registry wraps every backend's `invoke` once (engine/backends/registry.ts), and a
 * backend only says what happens on its way out — a wait for a connection, the request
 * going out, the status it answered — through an UpstreamLeg. No backend starts or
 * ends a span itself. The client span is named and attributed once per grant (on the
 * first call that records), so a gateway with telemetry off builds neither.
 */
import type { Attributes, Span } from './span.js';

/** An INTERNAL span's name for a call waiting for an upstream connection. */
export const CONNECTION_WAIT = 'mcp_beaver.wait.connection';

/** The W3C trace context to send upstream with a request. */
export interface TraceContext {
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
}

/** What a backend tells of its upstream call while it makes it. */
export interface UpstreamLeg {
  /** `wait` for an upstream connection, under an INTERNAL span when recording. */
  wait<T>(wait: Promise<T>): Promise<T>;
  /**
   * The request goes out now: the client span starts, and its trace context is what to
   * send. Undefined when nothing records: then the call's own traceparent goes, as the
   * projection made it.
   */
  send(): TraceContext | undefined;
  /** The upstream answered with this HTTP status. */
  answered(status: number): void;
}

/** The leg of a call nothing records: no span, no allocation. */
export const UNTRACED: UpstreamLeg = Object.freeze({
  wait: <T>(wait: Promise<T>) => wait,
  send: () => undefined,
  answered() {},
});

/** A grant's client span, as its kind declares it. */
export interface ClientSpanFacts {
  readonly name: () => string;
  readonly attributes: () => Attributes;
}

/** One grant's client spans: its name and attributes built once, on the first call that records. */
export class ClientSpans {
  private name: string | undefined = undefined;
  private attributes: Attributes | undefined = undefined;

  constructor(private readonly facts: ClientSpanFacts) {}

  /** The leg of one call whose request span `parent` records. */
  leg(parent: Span): ClientLeg {
    // The leg holds these spans, not a closure over them: one object a call, not two.
    return new ClientLeg(parent, this);
  }

  /** The client span of a call under `parent`, started now. */
  start(parent: Span): Span {
    this.name ??= this.facts.name();
    this.attributes ??= this.facts.attributes();
    return parent.child(this.name, 'client', this.attributes);
  }
}

/** A recording call's leg: its client span from `send` to `end`. */
export class ClientLeg implements UpstreamLeg {
  private span: Span | undefined = undefined;

  constructor(
    private readonly parent: Span,
    private readonly spans: ClientSpans,
  ) {}

  async wait<T>(wait: Promise<T>): Promise<T> {
    // A wait before the request goes out is the request span's child, one after it (a
    // statement's wait for a pooled connection) the client span's.
    const span = (this.span ?? this.parent).child(CONNECTION_WAIT, 'internal');
    try {
      return await wait;
    } finally {
      span.end();
    }
  }

  send(): TraceContext {
    this.span ??= this.spans.start(this.parent);
    return { traceparent: this.span.traceparent(), tracestate: this.span.tracestate() };
  }

  answered(status: number): void {
    this.span?.setAttribute('http.response.status_code', status);
  }

  /** The call is over: the client span, if the request went out, ends failed with `errorType` if it failed. */
  end(errorType: string | undefined): void {
    if (!this.span) return;
    if (errorType !== undefined) this.span.fail(errorType);
    this.span.end();
  }
}
