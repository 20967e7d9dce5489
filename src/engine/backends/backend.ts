/**
 * What a prepared grant's backend is called with and answers: prepared once per grant
 * at boot (backend-kinds.ts), then called with validated arguments.
 */
import type { EngineError } from '../error-catalogue.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';
import type { CallArguments } from '../call-arguments.js';
import type { CallContext } from '../call-context.js';

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

export interface PreparedBackend {
  /** The validated arguments, with the caller's text of their numbers. */
  invoke(args: CallArguments, ctx: CallContext): Promise<BackendOutcome>;
}
