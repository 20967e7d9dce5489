/**
 * W3C Trace Context: a call continues the caller's trace (from the MCP request's
 * `_meta.traceparent` in 2026-07-28, or the HTTP `traceparent` header) or starts one,
 * and the upstream request gets a child span of it.
 */
import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface TraceContext {
  readonly traceId: string;
  /** The traceparent to send upstream: same trace, a new span for our call. */
  readonly traceparent: string;
}

export function continueTrace(incoming: unknown): TraceContext {
  const m = typeof incoming === 'string' ? TRACEPARENT.exec(incoming.trim().toLowerCase()) : null;
  const valid = m && !/^0+$/.test(m[1]!) && !/^0+$/.test(m[2]!);
  const traceId = valid ? m[1]! : randomBytes(16).toString('hex');
  const flags = valid ? m[3]! : '01';
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}` };
}
