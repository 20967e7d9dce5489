/**
 * One POST to /mcp, start to finish: parse, check the JSON-RPC shape, decide the era
 * from the body (headers only cross-check it), then dispatch on the method string
 * before looking at params (protocol.md). Every request stands alone: no session.
 */
import { MAX_INPUT_DEPTH, nestsDeeperThan } from '../../engine/json-depth.js';
import { parseJson } from '../../engine/number-text.js';
import { ACCEPTED, errorReply, isValidId, RPC, type RpcReply } from './jsonrpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { checkMirroredHeaders, singleHeaderValue } from './mirrored-headers.js';
import { dispatchLegacy, dispatchModern } from './dispatch.js';
import {
  ALL_VERSIONS,
  isLegacyVersion,
  isModernVersion,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
} from './versions.js';

export type Headers = Record<string, string | string[] | undefined>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export async function handleMessage(
  text: string,
  headers: Headers,
  deps: McpDeps,
): Promise<RpcReply> {
  if (nestsDeeperThan(text, MAX_INPUT_DEPTH)) {
    return errorReply(
      400,
      null,
      RPC.INVALID_REQUEST,
      `Invalid Request: the message nests deeper than ${MAX_INPUT_DEPTH} levels`,
    );
  }
  let msg: unknown;
  try {
    // Arguments' numbers keep the caller's text where a double would change it.
    msg = parseJson(text);
  } catch (err) {
    return errorReply(400, null, RPC.PARSE_ERROR, `Parse error: ${(err as Error).message}`);
  }
  if (Array.isArray(msg))
    return errorReply(
      400,
      null,
      RPC.INVALID_REQUEST,
      'Invalid Request: batches are not supported; send one JSON-RPC message per POST',
    );
  if (!isObject(msg) || msg.jsonrpc !== '2.0')
    return errorReply(
      400,
      null,
      RPC.INVALID_REQUEST,
      'Invalid Request: expected a JSON-RPC 2.0 message object',
    );
  if (!Object.hasOwn(msg, 'method')) {
    const what =
      Object.hasOwn(msg, 'result') || Object.hasOwn(msg, 'error')
        ? 'a response; this server sends no requests to answer'
        : 'a message without a method';
    return errorReply(400, null, RPC.INVALID_REQUEST, `Invalid Request: got ${what}`);
  }
  const isNotification = !Object.hasOwn(msg, 'id');
  if (!isNotification && !isValidId(msg.id))
    return errorReply(
      400,
      null,
      RPC.INVALID_REQUEST,
      'Invalid Request: id must be a string or an integer',
    );
  const id = isNotification ? null : (msg.id as string | number);
  if (typeof msg.method !== 'string')
    return errorReply(400, id, RPC.INVALID_REQUEST, 'Invalid Request: method must be a string');
  if (msg.params !== undefined && !isObject(msg.params))
    return errorReply(400, id, RPC.INVALID_REQUEST, 'Invalid Request: params must be an object');
  const req: RpcRequest = { id, method: msg.method, params: msg.params };

  const meta = isObject(req.params?._meta) ? req.params._meta : undefined;
  const claim = meta?.[META_PROTOCOL_VERSION];
  const headerVersion = singleHeaderValue(headers['mcp-protocol-version']);

  if (claim !== undefined) {
    // Modern (2026-07-28): the body claims its version; headers must mirror it.
    if (typeof claim !== 'string')
      return errorReply(
        400,
        id,
        RPC.INVALID_PARAMS,
        `_meta["${META_PROTOCOL_VERSION}"] must be a string`,
      );
    if (headerVersion === undefined && !isNotification)
      return errorReply(400, id, RPC.HEADER_MISMATCH, 'missing MCP-Protocol-Version header');
    if (headerVersion !== undefined && headerVersion !== claim) {
      return errorReply(
        400,
        id,
        RPC.HEADER_MISMATCH,
        `MCP-Protocol-Version header ${JSON.stringify(headerVersion)} does not match _meta protocolVersion ${JSON.stringify(claim)}`,
      );
    }
    // Headers are cross-checked first: a header that disagrees with the body is a
    // -32020 even when the body's version is one we do not serve.
    if (!isModernVersion(claim)) {
      return errorReply(
        400,
        id,
        RPC.UNSUPPORTED_VERSION,
        `Unsupported protocol version: ${claim}`,
        { supported: ALL_VERSIONS, requested: claim },
      );
    }
    if (!isObject(meta?.[META_CLIENT_CAPABILITIES])) {
      return errorReply(
        400,
        id,
        RPC.INVALID_PARAMS,
        `missing _meta["${META_CLIENT_CAPABILITIES}"]: 2026-07-28 requests declare their capabilities per request`,
      );
    }
    // A notification is never executed (a tools/call without id included).
    if (isNotification) return ACCEPTED;
    const mirrored = checkMirroredHeaders(headers, req.method, req.params);
    if (!mirrored.ok) return errorReply(400, id, RPC.HEADER_MISMATCH, mirrored.message);
    return dispatchModern(req, deps);
  }

  // Legacy (2025-11-25 and earlier): silent clients are served, not refused.
  if (headerVersion !== undefined && isModernVersion(headerVersion)) {
    return errorReply(
      400,
      id,
      RPC.INVALID_PARAMS,
      `MCP-Protocol-Version ${headerVersion} needs _meta["${META_PROTOCOL_VERSION}"] in the body; the body is the source of truth`,
    );
  }
  if (
    headerVersion !== undefined &&
    !isLegacyVersion(headerVersion) &&
    req.method !== 'initialize'
  ) {
    return errorReply(
      400,
      id,
      RPC.INVALID_REQUEST,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(headerVersion)} (supported: ${ALL_VERSIONS.join(', ')})`,
    );
  }
  if (isNotification) return ACCEPTED;
  return dispatchLegacy(req, deps);
}
