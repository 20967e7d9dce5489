/**
 * What a request's server span says of the engine's answer to a call
 * (docs/observability.md, "Spans"): the grant and its identity chain (the credential kind
 * used upstream, the caller's OAuth client), and either the envelope's coverage or the
 * catalogue code with the guard that refused it. Both surfaces call it, only when their
 * span is recording.
 */
import type { Coverage } from '../envelope/envelope.js';
import { coverageAttributes, identityAttributes, refusedBy } from './conventions.js';
import type { Span } from './span.js';

/**
 * What the span reads of the engine's answer (engine/execute.ts `Outcome`): an
 * envelope, a failure with its catalogue code, or a question (no error).
 */
export type CallAnswer =
  | { readonly ok: true; readonly envelope: { readonly envelope: { readonly coverage: Coverage } } }
  | { readonly ok: false; readonly error?: { readonly code: string } | undefined };

/** The grant a call ran, as engine/operation/operation.ts `Operation` has it. */
export interface CallGrant {
  readonly name: string;
  /** The grant's credential kind (`CredentialKind`), worked out once at prepare. */
  readonly credential: string;
}

/** `caller` is whoever called: its OAuth client, never its subject, goes on the span. */
export function recordCall(
  span: Span,
  op: CallGrant,
  caller: { readonly client?: string },
  out: CallAnswer,
): void {
  const grant = op.name;
  span.setAttributes(identityAttributes(op.credential, caller.client));
  if (out.ok) {
    span.setAttributes(coverageAttributes(grant, out.envelope.envelope.coverage));
    return;
  }
  span.setAttribute('mcp_beaver.grant', grant);
  // A question to the caller's user (input_required) is an answer, not a failure.
  if (out.error === undefined) return;
  // `error.type` is the code itself (Span.fail); the guard is ours.
  span.setAttribute('mcp_beaver.refused_by', refusedBy(out.error.code));
  span.fail(out.error.code);
}
