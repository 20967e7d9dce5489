/**
 * What the resource, prompt and completion methods share: the engine's failures as
 * JSON-RPC errors (spec-language.md, "Resources and prompts"), the call context a
 * `from=` read carries, and the answer to a method the spec does not serve.
 */
import type { CallContext } from '../../engine/backends/backend.js';
import { statusOf, type EngineError } from '../../engine/error-catalogue.js';
import { continueTrace } from '../../engine/trace-context.js';
import { errorReply, RPC, type RpcReply } from './jsonrpc.js';
import type { Era, McpDeps, RpcRequest } from './mcp-request.js';

/** 2025-11-25 and earlier: resource not found (SEP-2164 moved it to -32602 in 2026-07-28). */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;

/**
 * A refusal is -32602 and an upstream failure -32603, with the catalogue code in
 * `error.data.code`; a missing scope is answered as for tools/call (HTTP 403 with the
 * challenge naming `scopes`); a URI nothing serves is not found with `data.uri`.
 */
export function engineErrorReply(
  req: RpcRequest,
  deps: McpDeps,
  era: Era,
  e: EngineError,
  scopes: readonly string[] = [],
): RpcReply {
  if (e.code === 'INSUFFICIENT_SCOPE') {
    const reply = errorReply(statusOf(e.code), req.id, RPC.INVALID_REQUEST, e.message, {
      code: e.code,
      ...(e.details && { details: e.details }),
    });
    return { ...reply, headers: { 'www-authenticate': deps.scopeChallenge(scopes) } };
  }
  const data = {
    code: e.code,
    ...(e.code === 'RESOURCE_NOT_FOUND' && (e.details as { uri: string } | undefined)),
    ...(e.code !== 'RESOURCE_NOT_FOUND' && e.details !== undefined && { details: e.details }),
    ...(e.retryAfter !== undefined && { retryAfter: e.retryAfter }),
  };
  const code =
    e.code === 'RESOURCE_NOT_FOUND'
      ? era === 'legacy'
        ? LEGACY_RESOURCE_NOT_FOUND
        : RPC.INVALID_PARAMS
      : statusOf(e.code) >= 500
        ? RPC.INTERNAL_ERROR
        : RPC.INVALID_PARAMS;
  const message = e.code === 'RESOURCE_NOT_FOUND' ? `Resource not found: ${e.message}` : e.message;
  return errorReply(200, req.id, code, message, data);
}

/** Malformed params: -32602 naming what is wrong. */
export function invalidParams(req: RpcRequest, message: string): RpcReply {
  return errorReply(200, req.id, RPC.INVALID_PARAMS, message);
}

/** A method of a capability the spec does not have (no resources, no prompts). */
export function notServed(req: RpcRequest, era: Era): RpcReply {
  return errorReply(
    era === 'modern' ? 404 : 200,
    req.id,
    RPC.METHOD_NOT_FOUND,
    `Method not found: ${req.method} (this server's spec declares none)`,
  );
}

/** The context a `from=` read runs with, as tools/call builds it. */
export function callContext(req: RpcRequest, deps: McpDeps, era: Era): CallContext {
  // 2026-07-28 carries the trace in the request's _meta; older clients use the header.
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  const trace = continueTrace(
    era === 'modern' && typeof meta?.traceparent === 'string'
      ? meta.traceparent
      : deps.traceparentHeader,
  );
  return {
    cancel: deps.callerCancel(),
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    origin: { surface: 'mcp', era, ...(deps.requestId && { requestId: deps.requestId }) },
  };
}
