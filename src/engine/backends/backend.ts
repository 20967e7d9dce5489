/**
 * What a prepared grant's backend is called with and answers: prepared once per grant
 * at boot (backend-kinds.ts), then called with validated arguments.
 */
import type { EngineError } from '../error-catalogue.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CallContext {
  /** Cancelled when the caller goes away. */
  readonly cancel?: Cancellation;
  /** W3C traceparent to continue upstream. */
  readonly traceparent?: string;
  /** The trace this call belongs to, for the audit line. */
  readonly traceId?: string;
  readonly origin?: CallOrigin;
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
}

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

export interface PreparedBackend {
  call(args: Record<string, unknown>, ctx: CallContext): Promise<BackendOutcome>;
}
