/**
 * The one interface every backend kind implements (architecture.md, habit 4):
 * prepared once per grant at boot, then called with validated arguments.
 */
import type { Descriptor } from '../../spec/descriptor.js';
import type { EngineError } from '../error-catalogue.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CallContext {
  /** Aborted when the caller goes away or the gateway gives up. */
  readonly signal?: AbortSignal;
  /** W3C traceparent to continue upstream. */
  readonly traceparent?: string;
  /** The trace this call belongs to, for the audit line. */
  readonly traceId?: string;
  readonly origin?: CallOrigin;
}

/** Where a call came from, for audit lines and metrics. */
export interface CallOrigin {
  readonly surface: 'mcp' | 'rest';
  /** MCP only: the protocol era of the request. */
  readonly era?: 'modern' | 'legacy';
  readonly requestId?: string;
}

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

export interface PreparedBackend {
  call(args: Record<string, unknown>, ctx: CallContext): Promise<BackendOutcome>;
}

/** Resources shared by all grants of one kind (an HTTP agent, a database pool). */
export interface BackendKind {
  prepare(d: Descriptor): PreparedBackend;
  /** Secrets this kind holds, for redaction everywhere. */
  secrets(): readonly string[];
  ready?(): Promise<boolean>;
  close(): Promise<void>;
}
