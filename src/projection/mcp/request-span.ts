/**
 * The server span of one MCP request (docs/observability.md, "Spans"), in both eras:
 * named and attributed after the method (conventions.ts), the child of the trace the
 * request carries in `params._meta.traceparent` (with `tracestate`), else of the HTTP
 * `traceparent` header, and ended when the reply is built, failed with the reply's error
 * type when it is a JSON-RPC error (a tools/call's isError result fails it in
 * dispatch.ts). Only called with telemetry on: the request path without it builds none of
 * this.
 */
import type { TraceParent } from '../../telemetry/telemetry.js';
import type { Span } from '../../telemetry/span.js';
import {
  mcpServerAttributes,
  mcpServerSpanName,
  mcpTargetOf,
} from '../../telemetry/conventions.js';
import type { RpcReply } from './jsonrpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { singleHeaderValue } from './mirrored-headers.js';
import { META_PROTOCOL_VERSION } from './versions.js';

type Headers = Record<string, string | string[] | undefined>;
type Answer = (
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: Headers,
  deps: McpDeps,
) => RpcReply | Promise<RpcReply>;

export function answerTraced(
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: Headers,
  deps: McpDeps,
  answer: Answer,
): RpcReply | Promise<RpcReply> {
  const target = mcpTargetOf(req.method, req.params);
  const span = deps.telemetry.serverSpan(
    mcpServerSpanName(req.method, target),
    parentOf(meta, headers),
    mcpServerAttributes({
      method: req.method,
      target,
      protocolVersion: protocolVersionOf(req, meta, headers),
      requestId: req.id,
      ...(deps.toolset && { toolset: deps.toolset.name }),
    }),
  );
  let out: RpcReply | Promise<RpcReply>;
  try {
    out = answer(req, meta, headers, { ...deps, span });
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

/** The version the request is served in: the body's claim, the header, or what initialize asks. */
function protocolVersionOf(
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: Headers,
): string | undefined {
  const claim = meta?.[META_PROTOCOL_VERSION];
  if (typeof claim === 'string') return claim;
  const header = singleHeaderValue(headers['mcp-protocol-version']);
  if (header !== undefined) return header;
  const asked = req.method === 'initialize' ? req.params?.protocolVersion : undefined;
  return typeof asked === 'string' ? asked : undefined;
}
