/**
 * The event the observer (telemetry/observer.ts) learns of one finished tool call: who
 * called what, how it ended and how long it took, never its arguments.
 */
import type { Caller } from './caller.js';
import type { CallContext } from './call-context.js';
import type { Asked, Outcome } from './execute.js';
import type { CallEvent } from '../telemetry/observer.js';

/** The event of a call to `tool` that ended with `out` (already redacted). */
export function callEvent(
  tool: string,
  caller: Caller,
  ctx: CallContext,
  out: Outcome | Asked,
  durationMs: number,
): CallEvent {
  const upstream = out.ok
    ? out.upstreamStatus
    : (out.error?.details as { status?: unknown } | undefined)?.status;
  return {
    tool,
    caller: caller.id,
    ...(ctx.origin && { origin: ctx.origin }),
    ...(ctx.traceId && { traceId: ctx.traceId }),
    outcome: out.ok ? 'ok' : (out.error?.code ?? 'input_required'),
    durationMs,
    ...(out.ok && {
      bytes: out.envelope.envelope.coverage.bytes,
      truncated: out.envelope.envelope.coverage.truncated,
      overBudget: out.envelope.envelope.coverage.over_budget,
    }),
    ...(typeof upstream === 'number' && { upstreamStatus: upstream }),
  };
}
