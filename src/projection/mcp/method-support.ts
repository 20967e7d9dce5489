/**
 * What the methods share: the engine's failures as JSON-RPC errors (spec-language.md,
 * "Resources and prompts"), the context a call into the engine carries, and the answer
 * to a method the spec does not serve.
 */
import type { CallOrigin, RequestScope } from '../../engine/call-context.js';
import { CANNOT_BE_ASKED } from '../unaskable.js';
import { statusOf, type EngineError } from '../../engine/error-catalogue.js';
import { isRpcError, RPC } from './rpc-codes.js';
import { validBaggage } from '../baggage.js';
import { traceOf } from '../trace-context.js';
import { NO_SPAN } from '../../telemetry/span.js';
import { rpcError, type RpcReply } from './rpc-reply.js';
import { errorText, resultBytes } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import type { Era } from '../../mcp-wire/versions.js';

/** 2025-11-25 and earlier: resource not found (SEP-2164 moved it to -32602 in 2026-07-28). */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;

/**
 * A refusal (bad variable, restrict, schema, prompt argument) is -32602 and an upstream
 * failure -32603, each with the catalogue code in `error.data.code`. A failure the
 * catalogue answers as a JSON-RPC error keeps its row's framing: a missing scope is
 * answered as for tools/call (HTTP 403 with the challenge), an unknown prompt is -32602,
 * and a URI nothing serves is not found with `data.uri` (-32002 in the 2025 eras).
 */
export function engineErrorReply(
  req: RpcRequest,
  deps: McpDeps,
  era: Era,
  e: EngineError,
): RpcReply {
  const legacy = era === 'legacy';
  if (e.code === 'RESOURCE_NOT_FOUND') {
    const { uri } = e.details as { uri: string };
    const message = `Resource not found: ${e.message}`;
    // In 2026-07-28 a not-found is -32602 whose data is exactly {uri}: that is how clients
    // (the SDK's ResourceNotFoundError) tell it from a refusal, so it carries no code there.
    return legacy
      ? {
          status: 200,
          body: errorText(req.id, LEGACY_RESOURCE_NOT_FOUND, message, { code: e.code, uri }),
          errorType: e.code,
        }
      : rpcError(e.code, req.id, message, { data: { uri } });
  }
  if (e.code === 'INSUFFICIENT_SCOPE') return callRefusal(req, deps, era, e);
  const data = {
    code: e.code,
    ...(e.details !== undefined && { details: e.details }),
    ...(e.retryAfter !== undefined && { retryAfter: e.retryAfter }),
  };
  if (isRpcError(e.code)) return rpcError(e.code, req.id, e.message, { data, legacy });
  const code = statusOf(e.code) >= 500 ? RPC.INTERNAL_ERROR : RPC.INVALID_PARAMS;
  return { status: 200, body: errorText(req.id, code, e.message, data), errorType: e.code };
}

/**
 * A failure that refuses the call itself rather than answer it (tools/call: every code the
 * catalogue answers as a JSON-RPC error; a read or get: a missing scope): the error with
 * its details as `data`, and the challenge its catalogue row asks for (HTTP 403 names the
 * scopes).
 */
export function callRefusal(req: RpcRequest, deps: McpDeps, era: Era, e: EngineError): RpcReply {
  // Callers ask only for codes MCP answers as JSON-RPC errors; any other here is our bug.
  const code = isRpcError(e.code) ? e.code : 'INTERNAL';
  const challenge = deps.challenge(e);
  return rpcError(code, req.id, e.message, {
    data: e.details,
    legacy: era === 'legacy',
    ...(challenge !== undefined && { headers: { 'www-authenticate': challenge } }),
  });
}

/** Malformed params: -32602 naming what is wrong. */
export function invalidParams(req: RpcRequest, message: string): RpcReply {
  return rpcError('INVALID_PARAMS', req.id, message);
}

/**
 * A method of a capability the endpoint does not have (no resources, no prompts): the
 * spec's on `/mcp`, the toolset's members on `/mcp/<toolset>`.
 */
export function notServed(req: RpcRequest, deps: McpDeps, era: Era): RpcReply {
  const { toolset } = deps.view;
  const whose = toolset
    ? `toolset ${JSON.stringify(toolset.name)} has no member of its kind`
    : "this server's spec declares none";
  return rpcError('METHOD_NOT_FOUND', req.id, `Method not found: ${req.method} (${whose})`, {
    legacy: era === 'legacy',
  });
}

/**
 * A list method (resources, templates, prompts): the prepared bytes of the caller's
 * view in the era's shape, or -32601 on an endpoint that serves no such kind.
 */
export function listMethod(
  kind: 'resources' | 'templates' | 'prompts',
): (req: RpcRequest, deps: McpDeps, era: Era) => RpcReply {
  const served = kind === 'prompts' ? 'prompts' : 'resources';
  return (req, deps, era) => {
    if (!deps.payloads.serves[served]) return notServed(req, deps, era);
    const lists = deps.payloads.lists(deps.caller)[kind];
    return {
      status: 200,
      body: resultBytes(req.id, era === 'modern' ? lists.modern : lists.legacy),
    };
  };
}

/**
 * The request scope of a call into the engine (tools/call, and the `from=` read of a
 * resource or prompt): the caller, its trace and cancellation, where it came from. It
 * asks nothing; tools/call adds the questions a 2026-07-28 request can be asked.
 */
export function requestScopeOf(req: RpcRequest, deps: McpDeps, era: Era): RequestScope {
  // The trace is in the request's _meta in either era (clients of both send it there),
  // else in the header. With a span, the call continues the span's trace: its trace id
  // is the span's, whether or not the caller's parent was valid.
  const meta = req.params?._meta as Record<string, unknown> | undefined;
  const span = deps.span ?? NO_SPAN;
  const trace = traceOf(
    span,
    typeof meta?.traceparent === 'string' ? meta.traceparent : deps.traceparentHeader,
  );
  return {
    caller: deps.caller,
    cancel: deps.callerCancel(),
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    // Passed on only when it is W3C baggage: a malformed one is dropped, not the call.
    baggage: validBaggage(typeof meta?.baggage === 'string' ? meta.baggage : deps.baggageHeader),
    span,
    origin: originOf(deps, era),
    approvalUrl: deps.approvalUrl,
    connectUrl: deps.connectUrl,
    unaskable: CANNOT_BE_ASKED,
  };
}

/**
 * Where a call came from. Members are added only when present (the audit line shows what
 * the origin holds), by assignment: conditional spreads into the literal cost 2.5× as much.
 */
function originOf(deps: McpDeps, era: Era): CallOrigin {
  const origin: { -readonly [K in keyof CallOrigin]: CallOrigin[K] } = {
    surface: 'mcp',
    era,
  };
  if (deps.requestId) origin.requestId = deps.requestId;
  if (deps.view.toolset) origin.toolset = deps.view.toolset.name;
  return origin;
}
