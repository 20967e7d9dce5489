/**
 * The server span of one MCP request (docs/observability.md, "Spans"), in both eras:
 * named and attributed after the method (conventions.ts), the child of the trace the
 * request carries in `params._meta.traceparent` (with `tracestate`), else of the HTTP
 * `traceparent` header, and ended when the reply is built, failed with the reply's error
 * type when it is a JSON-RPC error (a tools/call's isError result fails it in
 * dispatch.ts). Only called with telemetry on: the request path without it builds none of
 * this.
 *
 * Only names the gateway knows reach the span, as they reach the histograms' labels
 * (operation-of.ts): a method that is not MCP's is `other`, a tool or prompt the spec
 * does not have is left out (`tools/call`, no `gen_ai.tool.name`), a version it does not
 * serve is left out. A caller's own text never becomes a span name or attribute, so 50
 * made-up tool names are one span name, not 50 in the tracing backend's index.
 */
import type { Gateway } from '../../engine/gateway.js';
import { methodLabel } from '../../telemetry/operation-histograms.js';
import type { TraceParent } from '../../telemetry/telemetry.js';
import type { Span } from '../../telemetry/span.js';
import {
  httpServerAttributes,
  mcpServerAttributes,
  mcpServerSpanName,
  mcpTargetOf,
} from '../../telemetry/conventions.js';
import type { RpcReply } from './rpc-reply.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { singleHeaderValue } from '../../mcp-wire/header-values.js';
import { servedVersionOf } from './served-version.js';

type Headers = Record<string, string | string[] | undefined>;
type Answer = (
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: Headers | undefined,
  deps: McpDeps,
) => RpcReply | Promise<RpcReply>;

export function answerTraced(
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  /** Undefined on stdio, which carries none. */
  headers: Headers | undefined,
  deps: McpDeps,
  answer: Answer,
): RpcReply | Promise<RpcReply> {
  const method = methodLabel(req.method);
  const target = knownTarget(method, req.params, deps.gateway);
  const span = deps.telemetry.serverSpan(
    mcpServerSpanName(method, target),
    parentOf(meta, headers ?? {}),
    mcpServerAttributes({
      method,
      target,
      protocolVersion: servedVersionOf(req.method, req.params, headers ?? {}),
      requestId: req.id,
      ...(deps.view.toolset && { toolset: deps.view.toolset.name }),
    }),
  );
  // Set beside the MCP attributes, not spread into one object with them: a span copies
  // what it is given, so a merged object was one more per request (issue 40).
  if (deps.http && span.recording) span.setAttributes(httpServerAttributes(deps.http));
  // The span rides on this request's own deps, set in place: every message gets a deps
  // object of its own (mcp-routes.ts, stdio-transport.ts). A copy `{ ...deps, span }`
  // falls off V8's fast object clone (a spread followed by a property) and cost 3 µs a
  // request, more than recording both of its spans (issue 40, bench/RESULTS.md).
  deps.span = span;
  let out: RpcReply | Promise<RpcReply>;
  try {
    out = answer(req, meta, headers, deps);
  } catch (err) {
    end(span, 'INTERNAL');
    throw err;
  }
  if (!(out instanceof Promise)) return finish(span, out);
  return out.then(
    (reply) => finish(span, reply),
    (err: unknown) => {
      end(span, 'INTERNAL');
      throw err;
    },
  );
}

function finish(span: Span, reply: RpcReply): RpcReply {
  end(span, reply.errorType);
  return reply;
}

function end(span: Span, errorType: string | undefined): void {
  if (errorType !== undefined) span.fail(errorType);
  span.end();
}

/** `_meta.traceparent` in either era, else the headers: where the request's trace continues. */
export function parentOf(meta: Record<string, unknown> | undefined, headers: Headers): TraceParent {
  const inMeta = meta?.traceparent;
  if (typeof inMeta === 'string') {
    const state = meta?.tracestate;
    return typeof state === 'string'
      ? { traceparent: inMeta, tracestate: state }
      : { traceparent: inMeta };
  }
  const traceparent = singleHeaderValue(headers.traceparent);
  const tracestate = singleHeaderValue(headers.tracestate);
  return {
    ...(traceparent !== undefined && { traceparent }),
    ...(tracestate !== undefined && { tracestate }),
  };
}

/** The tool of a tools/call or the prompt of a prompts/get, when the spec has it. */
function knownTarget(
  method: string,
  params: Record<string, unknown> | undefined,
  gateway: Gateway,
): string | undefined {
  const name = mcpTargetOf(method, params);
  if (name === undefined) return undefined;
  const known =
    method === 'tools/call' ? gateway.view().operation(name) : gateway.prompts.byName(name);
  return known ? name : undefined;
}
