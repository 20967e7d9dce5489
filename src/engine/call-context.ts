import type { Span } from '../telemetry/span.js';

/**
 * What travels with one call from a surface through the engine to its backend: where
 * it came from, its trace, and the caller's cancellation. Made by the projections,
 * read by the engine, the backends and the audit line.
 */
export interface CallContext {
  /** Cancelled when the caller goes away. */
  readonly cancel?: Cancellation;
  /** W3C traceparent to continue upstream. */
  readonly traceparent?: string;
  /** The trace this call belongs to, for the audit line. */
  readonly traceId?: string;
  /**
   * W3C baggage as the caller sent it (`_meta.baggage` or the header), passed on
   * unchanged; absent when it was not valid baggage (projection/baggage.ts).
   */
  readonly baggage?: string;
  /**
   * The request's server span (issue 30): a backend makes its upstream call a child of
   * it. NO_SPAN (or absent) with telemetry off; then `traceparent` is what goes upstream.
   */
  readonly span?: Span;
  readonly origin?: CallOrigin;
  /** The catalog page's view of one approval, as this request reaches the gateway. */
  readonly approvalUrl?: (id: string) => string;
}

/**
 * The caller going away, for a backend to stop waiting on its upstream. A small object
 * rather than an AbortSignal: a controller and its event listeners on every call showed
 * in profiles.
 */
export class Cancellation {
  private done = false;
  private listener: (() => void) | undefined = undefined;

  get cancelled(): boolean {
    return this.done;
  }

  /**
   * Runs `listener` once when the call is cancelled; `undefined` removes it. One at a
   * time: a call has one backend.
   */
  onCancel(listener: (() => void) | undefined): void {
    this.listener = listener;
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

/** Where a call came from, for audit lines and metrics. */
export interface CallOrigin {
  readonly surface: 'mcp' | 'rest';
  /** MCP only: the protocol era of the request. */
  readonly era?: 'modern' | 'legacy';
  readonly requestId?: string;
  /** MCP only: the toolset whose URL (`/mcp/<toolset>`) the request came to. */
  readonly toolset?: string;
}
