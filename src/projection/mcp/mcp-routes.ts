/**
 * `POST /mcp`: our own thin Streamable HTTP transport (stateless, both eras). GET and
 * DELETE answer 405; bodies are read as text here so a parse error is a JSON-RPC
 * -32700, never the framework's error body. Responses are JSON unless the client
 * accepts only an event stream, then one SSE `message` event.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway } from '../../engine/gateway.js';
import type { AccessControl } from '../../access/access-control.js';
import { Cancellation } from '../../engine/call-context.js';
import { handleMessage } from './handle-message.js';
import { rpcError, type RpcReply } from './jsonrpc.js';
import type { Payloads } from './payloads.js';
import { authenticateFirst, authenticatedCaller, type Refusal } from '../../access/authenticate.js';
import { challengeOf } from '../../access/challenge.js';
import {
  engineError,
  isRpcError,
  rpcFraming,
  type EngineError,
} from '../../engine/error-catalogue.js';

export const MCP_PATH = '/mcp';

/** What the MCP route needs from the spec being served now (it changes on reload). */
export interface McpRuntime {
  readonly gateway: Gateway;
  readonly access: AccessControl;
  readonly mcpPayloads: Payloads;
}

export function registerMcpRoutes(
  app: FastifyInstance,
  current: () => McpRuntime,
  bodyLimit: number,
): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    const asText = (_req: FastifyRequest, body: string, done: (e: null, b: string) => void) =>
      done(null, body);
    // The same parser under its usual media type too: fastify caches its lookup by the
    // Content-Type header only for a named type, while the catch-all parsed the header
    // (a regex and an object) and searched its parser lists on every request.
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, asText);
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, asText);
    // Every request carries its token (protocol.md, "Authorization"): no session remembers
    // one. It is checked before the body is read.
    const onRequest = authenticateFirst(current, (reply, who) => sendRefusal(reply, who));
    scope.post(MCP_PATH, { onRequest }, async (req, reply) => {
      // The caller's cancellation is made on first use: only tools/call needs one, and a
      // close listener on every request showed in profiles.
      let cancel: Cancellation | undefined;
      const callerCancel = (): Cancellation => {
        if (!cancel) {
          const c = (cancel = new Cancellation());
          // The response closing before it was written means the caller went away.
          if (reply.raw.destroyed && !reply.raw.writableFinished) c.cancel();
          else
            reply.raw.once('close', () => {
              if (!reply.raw.writableFinished) c.cancel();
            });
        }
        return cancel;
      };
      // One runtime for the whole call: a reload meanwhile does not change its grant.
      const { gateway, access, mcpPayloads: payloads } = current();
      // Awaited only when a token is still being verified (no microtask turn otherwise).
      const found = authenticatedCaller(req, access);
      const who = found instanceof Promise ? await found : found;
      if (!who.ok) return sendRefusal(reply, who);
      const text = typeof req.body === 'string' ? req.body : '';
      // Plain data properties only: with a getter here V8 tenured these per-request
      // objects, and the old-space growth (major GCs) cost more than the call itself.
      const handled = handleMessage(text, req.headers, {
        gateway,
        payloads,
        caller: who.caller,
        challenge: (e) => challengeOf(access, req, e),
        callerCancel,
        requestId: req.id,
        traceparentHeader:
          typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
      });
      const out = handled instanceof Promise ? await handled : handled;
      return sendRpcReply(reply, out, req);
    });
    const notAllowed = async (_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
      sendRpcReply(
        reply,
        httpRefusal(
          engineError(
            'METHOD_NOT_ALLOWED',
            'this endpoint is stateless; POST one JSON-RPC message per request',
          ),
          { allow: 'POST' },
        ),
      );
    // Every other method is told which one serves, not answered 404 as if there were no endpoint.
    scope.route({
      method: ['GET', 'DELETE', 'PUT', 'PATCH'],
      url: MCP_PATH,
      handler: notAllowed,
    });
  });
}

// The last Accept value and its answer: a client sends the same one on every request,
// and splitting it allocated a handful of strings and arrays per request.
let lastAccept: string | undefined;
let lastWants = false;

/** SSE only when the client accepts an event stream and not JSON (protocol.md). */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept !== lastAccept) {
    lastWants = acceptsOnlyEventStream(accept);
    lastAccept = accept;
  }
  return lastWants;
}

function acceptsOnlyEventStream(accept: string | undefined): boolean {
  if (!accept || !/text\/event-stream/i.test(accept)) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const json = types.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*');
  return types.includes('text/event-stream') && !json;
}

/** A credential refused before the body is read: 401 with the challenge. */
function sendRefusal(reply: FastifyReply, who: Refusal): FastifyReply {
  return sendRpcReply(reply, httpRefusal(who.error, { 'www-authenticate': who.challenge }));
}

/**
 * A refusal of the HTTP request before any message is read (credential, origin, method),
 * as JSON-RPC: id null, the status's reason phrase, then what was wrong.
 */
export function httpRefusal(e: EngineError, headers?: Record<string, string>): RpcReply {
  // Only codes MCP answers as JSON-RPC errors refuse a request; any other here is our bug.
  const code = isRpcError(e.code) ? e.code : 'INTERNAL';
  const { status } = rpcFraming(code, false);
  return rpcError(code, null, `${STATUS_CODES[status]}: ${e.message}`, {
    ...(headers && { headers }),
  });
}

/**
 * A framework error on the MCP route (body over the limit, broken framing): the route
 * reads its body as text, so these are all that reach it, never a JSON parse error.
 */
export function mcpFrameworkError(
  err: { statusCode?: number; code?: string },
  bodyLimit: number,
): RpcReply {
  if (err.statusCode === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return rpcError('PAYLOAD_TOO_LARGE', null, `request body is over ${bodyLimit} bytes`);
  return (err.statusCode ?? 500) < 500
    ? rpcError('INVALID_REQUEST', null, 'Bad Request')
    : rpcError('INTERNAL', null, 'Internal error');
}

/** An MCP reply as HTTP: JSON, or one SSE event when the client takes only a stream. */
export function sendRpcReply(
  reply: FastifyReply,
  out: RpcReply,
  req?: FastifyRequest,
): FastifyReply {
  if (out.headers) void reply.headers(out.headers);
  if (out.status === 202) return reply.code(202).send();
  if (out.status === 200 && req && wantsEventStream(req.headers.accept)) {
    return reply
      .code(200)
      .headers({
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      })
      .send(`event: message\ndata: ${out.body}\n\n`);
  }
  return reply.code(out.status).type('application/json').send(out.body);
}
