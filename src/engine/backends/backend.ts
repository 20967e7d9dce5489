/**
 * The one interface every backend kind implements (architecture.md, habit 4):
 * prepared once per grant at boot, then called with validated arguments.
 */
import type { Descriptor } from '../../spec/descriptor.js';
import type { EngineError } from '../error-catalogue.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';
import type { Redactor } from '../redact.js';
import type { CallContext } from '../call-context.js';

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

export interface PreparedBackend {
  call(args: Record<string, unknown>, ctx: CallContext): Promise<BackendOutcome>;
}

/** Resources shared by all grants of one kind (an HTTP agent, a database pool). */
export interface BackendKind {
  /** `redact` knows every secret of the gateway: what the backend returns goes through it. */
  prepare(d: Descriptor, redact: Redactor): PreparedBackend;
  /** Secrets this kind holds, for redaction everywhere. */
  secrets(): readonly string[];
  /** Whole values sent with them (`Bearer <t>`), whose base64 is redacted too. */
  sentValues?(): readonly string[];
  ready?(): Promise<boolean>;
  close(): Promise<void>;
}
