/**
 * The event the observer (telemetry/observer.ts) learns of one finished tool call: who
 * called what, how it ended and how long it took, never its arguments.
 */
import type { RequestScope } from './call-context.js';
import type { Outcome } from './execute.js';
import { ASKED, type CallEvent } from '../telemetry/observer.js';

/** The event of a call to `tool` in `scope` that ended with `out` (already redacted). */
export function callEvent(
  tool: string,
  scope: RequestScope,
  out: Outcome,
  durationMs: number,
): CallEvent {
  const upstream = out.ok
    ? out.upstreamStatus
    : (out.error?.details as { status?: unknown } | undefined)?.status;
  return {
    tool,
    caller: scope.caller.id,
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
