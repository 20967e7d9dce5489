/**
 * One POST to /mcp, start to finish: parse (`readMessage`, which the projection's body
 * parser calls), check the JSON-RPC shape, decide the era from the body (headers only
 * cross-check it), then dispatch on the method string before looking at params
 * (protocol.md). Every request stands alone: a 2025-era session id carries what its
 * client declared in `initialize`, sealed (session-id.ts), so nothing is remembered here.
 */
import { MAX_INPUT_DEPTH, nestsDeeperThan } from '../../json/json-depth.js';
import { parseJson, type ExactJson } from '../../json/number-text.js';
import { ACCEPTED, rpcError, type RpcReply } from './rpc-reply.js';
import { isValidId } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { checkMirroredHeaders } from './mirrored-headers.js';
import { singleHeaderValue } from '../../mcp-wire/header-values.js';
import { dispatchLegacy, dispatchModern } from './dispatch.js';
import { callerKey, type SessionCaps } from './session-id.js';
import { originOf, type OpenQuestions } from './open-questions.js';
import { confirmAnswer } from './consent-round-trip.js';
import { answerTraced } from './request-span.js';
import {
  ALL_VERSIONS,
  isLegacyVersion,
  isModernVersion,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
} from '../../mcp-wire/versions.js';

export type Headers = Record<string, string | string[] | undefined>;

/**
 * What a transport that carries no headers passes (stdio): the body alone declares the
 * era, and there is nothing to mirror it (the 2026-07-28 stdio binding has no
 * `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name`).
 */
export const NO_HEADERS = undefined;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The body read as a JSON value, or the reply refusing it (too deep, not JSON). */
export type ReadMessage =
  { readonly ok: true; readonly msg: ExactJson } | { readonly ok: false; readonly reply: RpcReply };

/** MCP's one parse of a body (the projection's content-type parser calls it). */
export function readMessage(text: string): ReadMessage {
  if (nestsDeeperThan(text, MAX_INPUT_DEPTH)) {
    return {
      ok: false,
      reply: rpcError(
        'INVALID_REQUEST',
        null,
        `Invalid Request: the message nests deeper than ${MAX_INPUT_DEPTH} levels`,
      ),
    };
  }
  try {
    // Arguments' numbers keep the caller's text where a double would change it.
    return { ok: true, msg: parseJson(text) };
  } catch (err) {
    return {
      ok: false,
      reply: rpcError('INVALID_JSON', null, `Parse error: ${(err as Error).message}`),
    };
  }
}

/**
 * Synchronous unless the method is (a tools/call): tools/list and the other precompiled
 * answers cost no promise here.
 */
export function handleMessage(
  read: ReadMessage,
  headers: Headers | typeof NO_HEADERS,
  deps: McpDeps,
): RpcReply | Promise<RpcReply> {
  if (!read.ok) return read.reply;
  const parsed = read.msg;
  const msg = parsed.value;
  if (Array.isArray(msg))
    return rpcError(
      'INVALID_REQUEST',
      null,
      'Invalid Request: batches are not supported; send one JSON-RPC message per POST',
    );
  if (!isObject(msg) || msg.jsonrpc !== '2.0')
    return rpcError(
      'INVALID_REQUEST',
      null,
      'Invalid Request: expected a JSON-RPC 2.0 message object',
    );
  if (!Object.hasOwn(msg, 'method')) {
    const isResponse = Object.hasOwn(msg, 'result') || Object.hasOwn(msg, 'error');
    // The answer to a 2025-era question (question-stream.ts), POSTed by its client.
    if (isResponse && deps.questions) return answerQuestion(msg, deps.questions, deps);
    const what = isResponse
      ? 'a response; this server sends no requests to answer'
      : 'a message without a method';
    return rpcError('INVALID_REQUEST', null, `Invalid Request: got ${what}`);
  }
  const isNotification = !Object.hasOwn(msg, 'id');
  if (!isNotification && !isValidId(msg.id))
    return rpcError('INVALID_REQUEST', null, 'Invalid Request: id must be a string or an integer');
  const id = isNotification ? null : (msg.id as string | number);
  if (typeof msg.method !== 'string')
    return rpcError('INVALID_REQUEST', id, 'Invalid Request: method must be a string');
  if (msg.params !== undefined && !isObject(msg.params))
    return rpcError('INVALID_REQUEST', id, 'Invalid Request: params must be an object');
  const req: RpcRequest = {
    id,
    method: msg.method,
    params: msg.params,
    paramsTexts: parsed.texts?.at('params'),
  };
  const meta = isObject(req.params?._meta) ? req.params._meta : undefined;
  // One server span per request (issue 30), made only with telemetry on: off, this is a
  // property read and the same call as before.
  if (deps.telemetry.on && !isNotification)
    return answerTraced(req, meta, headers, deps, answerRequest);
  return answerRequest(req, meta, headers, deps);
}

/** A checked JSON-RPC request answered in the era its body declares. */
function answerRequest(
  req: RpcRequest,
  meta: Record<string, unknown> | undefined,
  headers: Headers | typeof NO_HEADERS,
  deps: McpDeps,
): RpcReply | Promise<RpcReply> {
  const { id } = req;
  // A request's id is never null (isValidId): null is a notification's.
  const isNotification = id === null;
  const claim = meta?.[META_PROTOCOL_VERSION];
  const headerVersion = headers && singleHeaderValue(headers['mcp-protocol-version']);

  if (claim !== undefined) {
    // Modern (2026-07-28): the body claims its version; headers must mirror it.
    if (typeof claim !== 'string')
      return rpcError('INVALID_META', id, `_meta["${META_PROTOCOL_VERSION}"] must be a string`);
    if (headers && headerVersion === undefined && !isNotification)
      return rpcError('HEADER_MISMATCH', id, 'missing MCP-Protocol-Version header');
    if (headerVersion !== undefined && headerVersion !== claim) {
      return rpcError(
        'HEADER_MISMATCH',
        id,
        `MCP-Protocol-Version header ${JSON.stringify(headerVersion)} does not match _meta protocolVersion ${JSON.stringify(claim)}`,
      );
    }
    // Headers are cross-checked first: a header that disagrees with the body is a
    // -32020 even when the body's version is one we do not serve.
    if (!isModernVersion(claim)) {
      return rpcError('UNSUPPORTED_VERSION', id, `Unsupported protocol version: ${claim}`, {
        data: { supported: ALL_VERSIONS, requested: claim },
      });
    }
    if (!isObject(meta?.[META_CLIENT_CAPABILITIES])) {
      return rpcError(
        'INVALID_META',
        id,
        `missing _meta["${META_CLIENT_CAPABILITIES}"]: 2026-07-28 requests declare their capabilities per request`,
      );
    }
    // A notification is never executed (a tools/call without id included).
    if (isNotification) return ACCEPTED;
    const mirrored = headers ? checkMirroredHeaders(headers, req.method, req.params) : undefined;
    if (mirrored && !mirrored.ok) return rpcError('HEADER_MISMATCH', id, mirrored.message);
    return dispatchModern(req, deps);
  }

  // Legacy (2025-11-25 and earlier): silent clients are served, not refused.
  if (headerVersion !== undefined && isModernVersion(headerVersion)) {
    return rpcError(
      'INVALID_META',
      id,
      `MCP-Protocol-Version ${headerVersion} needs _meta["${META_PROTOCOL_VERSION}"] in the body; the body is the source of truth`,
    );
  }
  if (
    headerVersion !== undefined &&
    !isLegacyVersion(headerVersion) &&
    req.method !== 'initialize'
  ) {
    return rpcError(
      'INVALID_REQUEST',
      id,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(headerVersion)} (supported: ${ALL_VERSIONS.join(', ')})`,
    );
  }
  // The sealed session id of the 2025 era (session-id.ts): what the client declared in
  // initialize. Without one the request declares nothing, as before sessions.
  let session: SessionCaps | undefined;
  if (deps.sessionId !== undefined && deps.sessions && req.method !== 'initialize') {
    session = deps.sessions.open(deps.sessionId, deps.caller);
    if (!session)
      return rpcError(
        'UNKNOWN_SESSION',
        id,
        'Not Found: the Mcp-Session-Id is unknown, expired or not this caller’s; initialize again',
      );
  }
  if (isNotification) {
    // A cancelled call that is asking its user: the question is dropped (open-questions.ts).
    if (session && req.method === 'notifications/cancelled' && deps.questions)
      deps.questions.cancel(
        originOf(deps.sessionId!, req.params?.requestId),
        callerKey(deps.caller),
      );
    return ACCEPTED;
  }
  return dispatchLegacy(req, deps, session);
}

/**
 * A JSON-RPC response POSTed by a 2025-era client: the answer to one of its caller's open
 * questions is 202 (handed to the waiting request, here or on another replica); any
 * other response is a 400.
 */
function answerQuestion(
  msg: Record<string, unknown>,
  questions: OpenQuestions,
  deps: McpDeps,
): RpcReply | Promise<RpcReply> {
  // An error instead of a result: the client could not put the question; nobody said yes.
  const answer = Object.hasOwn(msg, 'result') ? confirmAnswer(msg.result) : 'dismissed';
  const taken = questions.answer(msg.id, callerKey(deps.caller), answer);
  const reply = (ok: boolean): RpcReply =>
    ok
      ? ACCEPTED
      : rpcError(
          'INVALID_REQUEST',
          null,
          'Invalid Request: the response answers no open question of this caller (unknown id, already answered, or no longer waiting)',
        );
  return taken instanceof Promise ? taken.then(reply) : reply(taken);
}
