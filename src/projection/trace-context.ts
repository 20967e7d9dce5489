/**
 * W3C Trace Context: a call continues the caller's trace (from the MCP request's
 * `_meta.traceparent` in 2026-07-28, or the HTTP `traceparent` header) or starts one,
 * and the upstream request gets a child span of it.
 */
import { randomFillSync } from 'node:crypto';
import type { Span } from '../telemetry/span.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface TraceContext {
  readonly traceId: string;
  /** The traceparent to send upstream: same trace, a new span for our call. */
  readonly traceparent: string;
}

export function continueTrace(incoming: unknown): TraceContext {
  const m = typeof incoming === 'string' ? TRACEPARENT.exec(incoming.trim().toLowerCase()) : null;
  if (m && !/^0+$/.test(m[1]!) && !/^0+$/.test(m[2]!)) {
    const traceId = m[1]!;
    return { traceId, traceparent: `00-${traceId}-${randomHex(8)}-${m[3]!}` };
  }
  // A new trace (the usual case): its id and our span's id are one draw of 24 bytes,
  // spelled once and cut in two.
  const ids = randomHex(24);
  const traceId = ids.slice(0, 32);
  return { traceId, traceparent: `00-${traceId}-${ids.slice(32)}-01` };
}

/**
 * The trace a call continues: a recording span's own (its trace id as it holds it, the
 * span being sampled: flags 01), else the caller's `incoming` traceparent. What
 * continueTrace(span.traceparent()) gave, without building the span's traceparent and
 * parsing it back with three regular expressions on every traced call (issue 40).
 */
export function traceOf(span: Span, incoming: unknown): TraceContext {
  if (!span.recording) return continueTrace(incoming);
  const traceId = span.traceId;
  if (traceId === undefined) return continueTrace(span.traceparent());
  return { traceId, traceparent: `00-${traceId}-${randomHex(8)}-01` };
}

// Ids come from a pool of random bytes refilled when used up (as crypto.randomUUID
// does): one randomBytes call per id was a syscall and an allocation on every call.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('hex', used - bytes, used);
}
