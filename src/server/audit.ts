/**
 * One audit line per tool call (caller identity or key id, tool, surface, era,
 * outcome, duration, bytes, truncation, trace id) — never the argument values — and
 * the same event into the metrics.
 */
import type { Logger } from 'pino';
import type { CallObserver } from '../engine/call-event.js';
import type { Metrics } from './metrics.js';

export function createCallObserver(log: Logger | false, metrics: Metrics): CallObserver {
  return (e) => {
    metrics.observeCall(e);
    // Below info the line is dropped anyway: do not build it (this runs on every call).
    if (!log || !log.isLevelEnabled('info')) return;
    log.info(
      {
        audit: 'tool_call',
        tool: e.tool,
        caller: e.caller,
        // pino leaves out undefined values, like JSON.stringify.
        surface: e.origin?.surface,
        ...(e.origin?.era && { era: e.origin.era }),
        ...(e.origin?.requestId && { reqId: e.origin.requestId }),
        outcome: e.outcome,
        durationMs: Math.round(e.durationMs * 10) / 10,
        bytes: e.bytes,
        truncated: e.truncated,
        upstreamStatus: e.upstreamStatus,
        ...(e.traceId && { traceId: e.traceId }),
      },
      'tool call',
    );
  };
}
