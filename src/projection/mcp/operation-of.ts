/**
 * What the operation histogram says of one answered MCP request (telemetry/operation-histograms.ts):
 * read from the message the route already parsed, after it was answered, so the
 * dispatch path carries nothing more. Every value is bounded: a tool name only when the
 * spec has that grant, a version only when this gateway serves it.
 */
import type { Gateway } from '../../engine/gateway.js';
import type { ErrorType, McpOperation } from '../../telemetry/operation-histograms.js';
import type { Headers, ReadMessage } from './handle-message.js';
import type { RpcReply } from './rpc-reply.js';
import { field, servedVersionOf } from './served-version.js';

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
  const tool =
    typeof name === 'string' && gateway.view().operation(name) !== undefined ? name : undefined;
  const protocolVersion = servedVersionOf(method, params, headers);
  // Absent labels are undefined members, not spread in: a conditional spread after a
  // property leaves V8's fast object literal (issue 40); the histogram skips undefined.
  return {
    method: typeof method === 'string' ? method : 'other',
    tool,
    // Every reply builder sets a catalogue or protocol code here (rpc-reply.ts), never free text.
    errorType: out.errorType as ErrorType | undefined,
    protocolVersion,
  };
}
