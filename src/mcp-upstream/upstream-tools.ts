/**
 * The two requests the backend kind makes of an upstream: `tools/call` (mapped by
 * upstream-tool-result.ts) and `tools/list`, all its pages, for the drift checks.
 */
import type { Cancellation } from '../outbound/cancellation.js';
import { NumberTexts } from '../json/number-text.js';
import { mapToolResult } from './upstream-tool-result.js';
import type { UpstreamSession } from './upstream-session.js';
import {
  capText,
  RPC_MESSAGE_BYTES,
  type UpstreamFailure,
  type UpstreamOutcome,
} from './upstream-outcome.js';

/** A tool as the upstream lists it; only `name` is checked, the rest is the upstream's word. */
export interface UpstreamTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: unknown;
  readonly [key: string]: unknown;
}

/** What of a call's trace goes upstream in `params._meta`: W3C names, as received or made. */
export interface TraceMeta {
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
  readonly baggage?: string | undefined;
}

/** A `tools/list` that pages on past this is taken as a loop. */
const MAX_PAGES = 100;

export async function requestToolsCall(
  session: UpstreamSession,
  tool: string,
  args: Record<string, unknown>,
  o: TraceMeta & {
    timeoutMs: number;
    cancel?: Cancellation | undefined;
    retryOnNewSession?: boolean;
    /** The caller's number texts inside `args`. */
    texts?: NumberTexts | undefined;
    /** This call's own headers: a token kind's credential for the caller. */
    headers?: readonly (readonly [string, string])[] | undefined;
  },
  redact: (text: string) => string,
): Promise<UpstreamOutcome<unknown>> {
  const meta = metaOf(o);
  const out = await session.request(
    'tools/call',
    meta ? { name: tool, arguments: args, _meta: meta } : { name: tool, arguments: args },
    { ...o, texts: NumberTexts.withMember(undefined, 'arguments', o.texts) },
  );
  return out.ok
    ? mapToolResult(out.value, redact)
    : { ok: false, error: finish(out.error, redact) };
}

/** The trace's members that are set, or nothing when none is. */
function metaOf(t: TraceMeta): Record<string, string> | undefined {
  if (!t.traceparent && !t.baggage) return undefined;
  const meta: Record<string, string> = {};
  if (t.traceparent) meta.traceparent = t.traceparent;
  if (t.tracestate) meta.tracestate = t.tracestate;
  if (t.baggage) meta.baggage = t.baggage;
  return meta;
}

/**
 * An upstream's JSON-RPC error message, redacted and then cut (cut first, the front of
 * a secret could be left); the other kinds' messages are ours, their quotes redacted
 * where they were made.
 */
export function finish(error: UpstreamFailure, redact: (text: string) => string): UpstreamFailure {
  return error.kind === 'rpc-error'
    ? { ...error, message: capText(redact(error.message), RPC_MESSAGE_BYTES) }
    : error;
}

export async function requestToolsList(
  session: UpstreamSession,
  o: { timeoutMs: number; cancel?: Cancellation | undefined },
  redact: (text: string) => string,
): Promise<UpstreamOutcome<UpstreamTool[]>> {
  const until = performance.now() + o.timeoutMs;
  const tools: UpstreamTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await session.request('tools/list', cursor === undefined ? {} : { cursor }, {
      timeoutMs: Math.max(1, until - performance.now()),
      cancel: o.cancel,
      // A list is a read: sending it again on a new session is harmless.
      retryOnNewSession: true,
    });
    if (!out.ok) return { ok: false, error: finish(out.error, redact) };
    const listed = out.value.tools;
    if (!Array.isArray(listed) || !listed.every(isTool))
      return notMcp('the upstream answered tools/list without a list of named tools');
    tools.push(...listed);
    const next = out.value.nextCursor;
    if (next === undefined || next === null || next === '') return { ok: true, value: tools };
    if (typeof next !== 'string' || seen.has(next))
      return notMcp(
        'the upstream answered tools/list with a cursor that repeats or is not a string',
      );
    seen.add(next);
    cursor = next;
  }
  return notMcp(`the upstream's tools/list goes on past ${MAX_PAGES} pages`);
}

function isTool(t: unknown): t is UpstreamTool {
  return t !== null && typeof t === 'object' && typeof (t as UpstreamTool).name === 'string';
}

function notMcp(message: string): UpstreamOutcome<never> {
  return { ok: false, error: { kind: 'protocol', message } };
}
