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
  // Built by assignment in the members' order, not with conditional spreads: on Node 20
  // each `...(cond && {…})` is a copy of its own (about 0.5 µs an event against 0.1).
  const e: Mutable<CallEvent> = {
    tool: op.name,
    caller: scope.caller.id,
    // Undefined for a caller with no OAuth client: no object is made per call for it.
    client: scope.caller.client,
    credential: op.credential,
  };
  if (scope.origin) e.origin = scope.origin;
  if (scope.traceId) e.traceId = scope.traceId;
  e.outcome = out.ok ? 'ok' : (out.error?.code ?? ASKED);
  e.durationMs = durationMs;
  if (out.ok) {
    const { coverage } = out.envelope.envelope;
    e.bytes = coverage.bytes;
    e.truncated = coverage.truncated;
    e.overBudget = coverage.over_budget;
  }
  if (typeof upstream === 'number') e.upstreamStatus = upstream;
  return e as CallEvent;
}

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };
