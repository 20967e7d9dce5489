/**
 * The server's observer (telemetry/observer.ts): one audit line per tool call (the
 * identity chain: caller identity or key id, its OAuth client, the credential kind the
 * upstream was called with; tool, surface, era, outcome, duration, bytes, truncation,
 * trace id) — never the argument values — and the same event into the metrics; each
 * upstream MCP call into its histogram.
 */
import type { ConsentAudit } from '../engine/consent/consent-types.js';
import type { Logger } from 'pino';
import type { CallEvent, Observer } from '../telemetry/observer.js';
import type { Metrics } from '../telemetry/metrics.js';

export function createObserver(log: Logger | false, metrics: Metrics): Observer {
  return {
    call: (e) => auditCall(log, metrics, e),
    upstreamCall: metrics.observeMcpClientOperation,
  };
}

function auditCall(log: Logger | false, metrics: Metrics, e: CallEvent): void {
  metrics.observeCall(e);
  // Below info the line is dropped anyway: do not build it (this runs on every call).
  if (!log || !log.isLevelEnabled('info')) return;
  log.info(
    {
      audit: 'tool_call',
      tool: e.tool,
      caller: e.caller,
      // pino leaves out undefined values, like JSON.stringify: no client for an API key.
      client: e.client,
      credential: e.credential,
      surface: e.origin?.surface,
      ...(e.origin?.era && { era: e.origin.era }),
      ...(e.origin?.requestId && { reqId: e.origin.requestId }),
      ...(e.origin?.toolset && { toolset: e.origin.toolset }),
      outcome: e.outcome,
      durationMs: Math.round(e.durationMs * 10) / 10,
      bytes: e.bytes,
      truncated: e.truncated,
      upstreamStatus: e.upstreamStatus,
      ...(e.traceId && { traceId: e.traceId }),
    },
    'tool call',
  );
}

/**
 * The audit line of every step of a confirmation or approval (docs/spec-language.md,
 * "Confirmation and approval"): who, which tool, the digest of the arguments and the
 * approval's id, never the arguments or the message filled from them.
 */
export function createConsentAudit(log: Logger | false): ConsentAudit {
  return (line) => {
    if (!log) return;
    log.info(
      {
        audit: 'consent',
        event: line.event,
        tool: line.tool,
        caller: line.caller,
        argumentsDigest: line.argumentsDigest,
        approvalId: line.approvalId,
        confirmationId: line.confirmationId,
        decidedBy: line.decidedBy,
        reason: line.reason,
      },
      line.event.replace('_', ' '),
    );
  };
}
