/**
 * The event the observer (telemetry/observer.ts) learns of one finished tool call: who
 * called what (the identity chain: the caller, its OAuth client, what the upstream was
 * called as), how it ended and how long it took, never its arguments.
 */
import type { RequestScope } from './call-context.js';
import type { Outcome } from './execute.js';
import type { Operation } from './operation/operation.js';
import { ASKED, type CallEvent } from '../telemetry/observer.js';

/** The event of a call to `op` in `scope` that ended with `out` (already redacted). */
export function callEvent(
  op: Pick<Operation, 'name' | 'credential'>,
  scope: RequestScope,
  out: Outcome,
  durationMs: number,
): CallEvent {
  const upstream = out.ok
    ? out.upstreamStatus
    : (out.error?.details as { status?: unknown } | undefined)?.status;
  return {
    tool: op.name,
    caller: scope.caller.id,
    // Undefined for a caller with no OAuth client: no object is made per call for it.
    client: scope.caller.client,
    credential: op.credential,
    ...(scope.origin && { origin: scope.origin }),
    ...(scope.traceId && { traceId: scope.traceId }),
    outcome: out.ok ? 'ok' : (out.error?.code ?? ASKED),
    durationMs,
    ...(out.ok && {
      bytes: out.envelope.envelope.coverage.bytes,
      truncated: out.envelope.envelope.coverage.truncated,
      overBudget: out.envelope.envelope.coverage.over_budget,
    }),
    ...(typeof upstream === 'number' && { upstreamStatus: upstream }),
  };
}
