import type { Cancellation } from '../outbound/cancellation.js';
import type { Span } from '../telemetry/span.js';
import type { Caller } from './caller.js';
import type { Questions, Unaskable } from './consent/questions.js';

/**
 * What travels with one call from a surface through the engine to its backend: where
 * it came from, its trace, and the caller's cancellation. Made by the projections,
 * read by the engine, the backends and the audit line.
 */
export interface CallContext {
  /**
   * Who calls: the credential kinds that act for the caller (auth exchange, auth user)
   * read it. Every surface's RequestScope has it; a test may call a backend without.
   */
  readonly caller?: Caller;
  /** Cancelled when the caller goes away. */
  readonly cancel?: Cancellation;
  /** W3C traceparent to continue upstream. */
  readonly traceparent?: string;
  /** The trace this call belongs to, for the audit line. */
  readonly traceId?: string;
  /**
   * W3C baggage as the caller sent it, passed on unchanged; absent when it was not valid
   * baggage (projection/baggage.ts).
   */
  readonly baggage?: string;
  /**
   * The request's server span (issue 30): a backend makes its upstream call a child of
   * it. NO_SPAN (or absent) with telemetry off; then `traceparent` is what goes upstream.
   */
  readonly span?: Span;
  readonly origin?: CallOrigin;
  /**
   * Where the caller connects its account at `provider` (`auth user`): the connect link
   * `id` on the gateway as this request reaches it. Absent (stdio, a bare test): a path.
   */
  readonly connectUrl?: (provider: string, id: string) => string;
}

/**
 * One request as the engine reads it, built once by the surface's gate: who calls, the
 * call's context (trace, cancellation, origin), and what the request can be asked and
 * has answered. The toolset view is the gateway's (`gateway.view(toolset)`), through
 * which the surface found the operation.
 */
export interface RequestScope extends CallContext {
  readonly caller: Caller;
  /** Present when the request can put questions to its user (consent-types.ts). */
  readonly questions?: Questions;
  /** How this surface says it cannot ask, for a call that needs its user's yes. */
  readonly unaskable?: Unaskable;
  /** Where a person sees approval `id`: the surface builds it, the engine quotes it. */
  readonly approvalUrl: (id: string) => string;
}

/** A scope that cannot ask its user anything: a call in it is done or failed, never asked. */
export type AnsweringScope = RequestScope & { readonly questions?: undefined };

/** Where a call came from, for audit lines and metrics. */
export interface CallOrigin {
  readonly surface: 'mcp' | 'rest';
  /** The surface's own generation of the request (MCP: its protocol era), for audit and metrics. */
  readonly era?: 'modern' | 'legacy';
  readonly requestId?: string;
  /** The toolset whose URL the request came to. */
  readonly toolset?: string;
}
