/**
 * `POST /mcp`: our own thin Streamable HTTP transport (stateless, both eras). GET and
 * DELETE answer 405; bodies are read as text here so a parse error is a JSON-RPC
 * -32700, never the framework's error body. Responses are JSON unless the client
 * accepts only an event stream, then one SSE `message` event.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway } from '../../engine/gateway.js';
import type { AccessControl } from '../../access/access-control.js';
import { Cancellation } from '../../engine/backends/backend.js';
import { handleMessage } from './handle-message.js';
import { errorText, RPC, type RpcReply } from './jsonrpc.js';
import type { Payloads } from './payloads.js';
import { authenticateFirst, authenticatedCaller } from '../../access/authenticate.js';

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
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err: { statusCode?: number; code?: string }, _req, reply) => {
      const tooLarge = err.statusCode === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE';
      const status = tooLarge ? 413 : (err.statusCode ?? 500) < 500 ? 400 : 500;
      const message = tooLarge
        ? `request body is over ${bodyLimit} bytes`
        : status === 400
          ? 'Bad Request'
          : 'Internal error';
      return reply
        .code(status)
        .type('application/json')
        .send(errorText(null, status === 500 ? RPC.INTERNAL_ERROR : RPC.INVALID_REQUEST, message));
    });

    // Every request carries its token (protocol.md, "Authorization"): no session remembers
    // one. It is checked before the body is read.
    const onRequest = authenticateFirst(current, (reply, who) =>
      reply
        .code(401)
        .header('www-authenticate', who.challenge)
        .type('application/json')
        .send(errorText(null, RPC.INVALID_REQUEST, `Unauthorized: ${who.error.message}`)),
    );
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
      const who = await authenticatedCaller(req, access);
      if (!who.ok) {
        return reply
          .code(401)
          .header('www-authenticate', who.challenge)
          .type('application/json')
          .send(errorText(null, RPC.INVALID_REQUEST, `Unauthorized: ${who.error.message}`));
      }
      const text = typeof req.body === 'string' ? req.body : '';
      // Plain data properties only: with a getter here V8 tenured these per-request
      // objects, and the old-space growth (major GCs) cost more than the call itself.
      const out = await handleMessage(text, req.headers, {
        gateway,
        payloads,
        caller: who.caller,
        scopeChallenge: (required) => access.scopeChallenge(req, required),
        callerCancel,
        requestId: req.id,
        traceparentHeader:
          typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
      });
      return send(req, reply, out);
    });
    const notAllowed = async (_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
      reply
        .code(405)
        .header('allow', 'POST')
        .type('application/json')
        .send(
          errorText(
            null,
            RPC.INVALID_REQUEST,
            'Method Not Allowed: this endpoint is stateless; POST one JSON-RPC message per request',
          ),
        );
    scope.get(MCP_PATH, notAllowed);
    scope.delete(MCP_PATH, notAllowed);
  });
}

/** SSE only when the client accepts an event stream and not JSON (protocol.md). */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept || !/text\/event-stream/i.test(accept)) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const json = types.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*');
  return types.includes('text/event-stream') && !json;
}

function send(req: FastifyRequest, reply: FastifyReply, out: RpcReply): FastifyReply {
  if (out.headers) void reply.headers(out.headers);
  if (out.status === 202) return reply.code(202).send();
  if (out.status === 200 && wantsEventStream(req.headers.accept)) {
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
