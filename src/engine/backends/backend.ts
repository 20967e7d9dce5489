/**
 * What a prepared grant's backend is called with and answers: prepared once per grant
 * at boot (backend-kinds.ts), then called with validated arguments.
 */
import type { EngineError } from '../error-catalogue.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';
import type { CallContext } from '../call-context.js';

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

export interface PreparedBackend {
  invoke(args: Record<string, unknown>, ctx: CallContext): Promise<BackendOutcome>;
}
