/**
 * What the operation histogram says of one answered MCP request (server/operation-histograms.ts):
 * read from the message the route already parsed, after it was answered, so the
 * dispatch path carries nothing more. Every value is bounded: a tool name only when the
 * spec has that grant, a version only when this gateway serves it.
 */
import type { Gateway } from '../../engine/gateway.js';
import type { ErrorType, McpOperation } from '../../server/operation-histograms.js';
import type { Headers, ReadMessage } from './handle-message.js';
import type { RpcReply } from './jsonrpc.js';
import { singleHeaderValue } from './mirrored-headers.js';
import { ALL_VERSIONS, META_PROTOCOL_VERSION } from './versions.js';

function field(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)[key]
    : undefined;
}

function served(v: unknown): string | undefined {
  return typeof v === 'string' && ALL_VERSIONS.includes(v) ? v : undefined;
}

/**
 * The version a request is served in, when this gateway serves it: the body's claim
 * (2026-07-28), else the header, else what a legacy initialize asks for. Undefined for a
 * version the caller made up, so it never becomes a label or a span attribute.
 */
export function servedVersionOf(
  method: unknown,
  params: unknown,
  headers: Headers,
): string | undefined {
  return (
    served(field(field(params, '_meta'), META_PROTOCOL_VERSION)) ??
    served(singleHeaderValue(headers['mcp-protocol-version'])) ??
    (method === 'initialize' ? served(field(params, 'protocolVersion')) : undefined)
  );
}

export function operationOf(
  read: ReadMessage,
  headers: Headers,
  gateway: Gateway,
  out: RpcReply,
): McpOperation {
  const msg = read.ok ? read.msg.value : undefined;
  const method = field(msg, 'method');
  const params = field(msg, 'params');
  const name = method === 'tools/call' ? field(params, 'name') : undefined;
  const tool = typeof name === 'string' && gateway.operation(name) !== undefined ? name : undefined;
  const protocolVersion = servedVersionOf(method, params, headers);
  return {
    method: typeof method === 'string' ? method : 'other',
    ...(tool !== undefined && { tool }),
    // Every reply builder sets a catalogue or protocol code here (jsonrpc.ts), never free text.
    ...(out.errorType !== undefined && { errorType: out.errorType as ErrorType }),
    ...(protocolVersion !== undefined && { protocolVersion }),
  };
}
