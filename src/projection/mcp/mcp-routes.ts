/**
 * `POST /mcp`: our own thin Streamable HTTP transport (stateless, both eras). GET answers
 * 405, and DELETE too unless it ends a 2025-era session id (session-id.ts); bodies are read as text and parsed by `readMessage`, so a parse
 * error is a JSON-RPC -32700, never the framework's error body. Responses are JSON unless the client
 * accepts only an event stream, then one SSE `message` event. Each toolset is served the
 * same way at `POST /mcp/<toolset>` (spec-language.md, "Served at `/mcp/<toolset>`"),
 * with its own payloads; a name that is no toolset is HTTP 404 NOT_FOUND.
 */
import { connectPageUrl } from '../../connections/connect-path.js';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway } from '../../engine/gateway.js';
import type { AccessControl } from '../../access/access-control.js';
import { Cancellation } from '../../outbound/cancellation.js';
import { handleMessage, readMessage, type ReadMessage } from './handle-message.js';
import { rpcError, type RpcReply } from './rpc-reply.js';
import type { Payloads } from './payloads.js';
import { gateCallers } from '../../access/authenticate.js';
import { RefusedRequest } from '../../access/refused-request.js';
import { challengeOf } from '../../access/challenge.js';
import { engineError, type EngineError } from '../../engine/error-catalogue.js';
import { isRpcError, rpcFraming } from './rpc-codes.js';
import { clientWentAway } from '../client-went-away.js';
import { clipped } from '../../engine/refusal-text.js';
import { approvalPageUrl, confirmPageUrl } from '../approval-url.js';
import { TELEMETRY_OFF, type Telemetry } from '../../telemetry/telemetry.js';
import type { OperationHistograms } from '../../telemetry/operation-histograms.js';
import { operationOf } from './operation-of.js';
import { sendRestError } from '../rest/rest-error.js';
import type { SessionSeal } from './session-id.js';
import type { OpenQuestions } from './open-questions.js';
import { streamQuestion } from './question-stream.js';
import type { Served } from '../../access/authenticate.js';
import { observeRefusal, type RefusalObservers } from '../refusal-telemetry.js';

export const MCP_PATH = '/mcp';

/** What the MCP route needs from the spec being served now (it changes on reload). */
export interface McpRuntime {
  readonly gateway: Gateway;
  readonly access: AccessControl;
  readonly mcpPayloads: Payloads;
  /** Each toolset's payloads by name, served at `/mcp/<toolset>`. */
  readonly toolsetPayloads: ReadonlyMap<string, Payloads>;
  /** Spans for requests (issue 30); TELEMETRY_OFF when absent. */
  readonly telemetry?: Telemetry;
  /** The 2025 era's session ids, sealed with the consent key (absent without confirm/approve). */
  readonly sessions?: SessionSeal;
  /** The process's open 2025-era questions (absent on stdio). */
  readonly questions?: OpenQuestions;
}

export interface McpOptions {
  /** The runtime serving now; a reload replaces what this returns. */
  readonly current: () => McpRuntime;
  readonly bodyLimit: number;
  /**
   * Where each answered request's duration goes (`mcp_server_operation_duration_seconds`),
   * and a request refused before its message was read (`http_server_request_duration_seconds`).
   */
  readonly metrics?: Pick<OperationHistograms, 'observeMcpOperation' | 'observeHttpServer'>;
}

/**
 * The MCP projection as a fastify plugin: its body parser, its error handler (every
 * answer JSON-RPC, never the framework's body) and its caller gate hold for its routes
 * only (fastify's encapsulation), so nothing outside it knows which URL is MCP's.
 */
export async function mcpProjection(scope: FastifyInstance, opts: McpOptions): Promise<void> {
  const { bodyLimit, metrics } = opts;
  scope.removeAllContentTypeParsers();
  // The same parser under its usual media type too: fastify caches its lookup by the
  // Content-Type header only for a named type, while the catch-all parsed the header
  // (a regex and an object) and searched its parser lists on every request.
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, readBody);
  scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, readBody);
  scope.setErrorHandler(
    mcpErrorHandler(bodyLimit, () => ({ telemetry: opts.current().telemetry, metrics })),
  );
  // Every request carries its token (protocol.md, "Authorization"): no session remembers
  // one. It is checked before the body is read.
  const gate = gateCallers(scope, opts.current);

  /**
   * One message answered on the endpoint whose payloads the route chose (`/mcp`'s or a
   * toolset's). Not async: an answer ready at once (tools/list, a refusal) is sent now and
   * the handler returns nothing, so it costs no promise; a call's answer is sent from its
   * own promise, with no second async frame awaiting it.
   */
  function answer(
    req: FastifyRequest<{ Body: ReadMessage | undefined }>,
    reply: FastifyReply,
    { runtime, caller }: Served<McpRuntime>,
    payloads: Payloads,
    started: number,
  ): Promise<FastifyReply | undefined> | undefined {
    const { gateway, access } = runtime;
    // No body at all is read as an empty one (fastify calls no parser then).
    const read = req.body ?? readMessage('');
    // Plain data properties only: with a getter here V8 tenured these per-request
    // objects, and the old-space growth (major GCs) cost more than the call itself.
    const handled = handleMessage(read, req.headers, {
      gateway,
      payloads,
      view: gateway.view(payloads.toolset),
      caller,
      challenge: (e) => challengeOf(access, req, e),
      callerCancel: lazyCancellation(reply),
      approvalUrl: (id) => approvalPageUrl(access.baseUrl(req), id),
      confirmationUrl: (id) => confirmPageUrl(access.baseUrl(req), id),
      // Made only for a spec that has connect pages: no closure per request otherwise.
      connectUrl:
        gateway.spec.oauthProviders.length > 0
          ? (provider: string, id: string) => connectPageUrl(access.baseUrl(req), provider, id)
          : undefined,
      requestId: req.id,
      traceparentHeader:
        typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
      baggageHeader: typeof req.headers.baggage === 'string' ? req.headers.baggage : undefined,
      telemetry: runtime.telemetry ?? TELEMETRY_OFF,
      http: req,
      sessions: runtime.sessions,
      sessionId: sessionHeader(req),
      questions: runtime.questions,
      acceptsStream: acceptsEventStream(req.headers.accept),
    });
    // Resolved with nothing once sent, not with the reply: a reply is a thenable, and a
    // promise resolved with one adopts it (one more job and a `reply.then` per call).
    if (handled instanceof Promise)
      return handled.then((out) => {
        const sent = answered(req, reply, runtime, read, out, started);
        return sent === reply ? undefined : sent;
      });
    const sent = answered(req, reply, runtime, read, handled, started);
    return sent === reply ? undefined : (sent as Promise<FastifyReply>);
  }

  /** Counts the answered operation and sends `out` (or puts its question on a stream). */
  function answered(
    req: FastifyRequest,
    reply: FastifyReply,
    runtime: McpRuntime,
    read: ReadMessage,
    out: RpcReply,
    started: number,
  ): FastifyReply | Promise<FastifyReply> {
    // A notification (202) is not an operation answered; everything else is.
    if (metrics && out.status !== 202)
      metrics.observeMcpOperation(
        operationOf(read, req.headers, runtime.gateway, out),
        (performance.now() - started) / 1000,
      );
    if (out.question)
      return streamQuestion(reply, out.question, runtime.questions!.keepAliveMs, out.headers).then(
        () => reply,
      );
    return sendRpcReply(reply, out, req);
  }

  scope.post<{ Body: ReadMessage | undefined }>(
    MCP_PATH,
    gate.hooks,
    // Not async: a call's answer is the one promise of a request, and the rest have none.
    function answerMessage(req, reply) {
      const started = req.beaverStarted;
      // One runtime for the whole call: a reload meanwhile does not change its grant.
      const served = gate.served(req);
      return answer(req, reply, served, served.runtime.mcpPayloads, started);
    },
  );

  scope.post<{ Body: ReadMessage | undefined; Params: { toolset: string } }>(
    `${MCP_PATH}/:toolset`,
    gate.hooks,
    function answerToolsetMessage(req, reply) {
      const started = req.beaverStarted;
      const served = gate.served(req);
      const name = req.params.toolset;
      const payloads = served.runtime.toolsetPayloads.get(name);
      // Answered after the credential check: a stranger learns no toolset name here.
      if (!payloads)
        return Promise.resolve(
          sendRestError(reply, noSuchToolset(req.url, name, served.runtime.gateway)),
        );
      return answer(req, reply, served, payloads, started);
    },
  );

  // Every other method is told which one serves, not answered 404 as if there were no
  // endpoint; DELETE with a 2025-era session id ends it (there is nothing to end: the id
  // is checked, and the client forgets it).
  for (const url of [MCP_PATH, `${MCP_PATH}/:toolset`]) {
    scope.route({ method: ['GET', 'PUT', 'PATCH'], url, handler: messagesNeedPost });
    scope.route({ method: 'DELETE', url, handler: endSession });
  }

  async function endSession(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = sessionHeader(req);
    const runtime = opts.current();
    if (id === undefined || !runtime.sessions) return messagesNeedPost(req, reply);
    const resolved = runtime.access.resolve(req);
    const who = resolved instanceof Promise ? await resolved : resolved;
    if (!who.ok) throw new RefusedRequest(who.error, who.challenge);
    if (!runtime.sessions.open(id, who.caller))
      return sendRpcReply(
        reply,
        rpcError(
          'UNKNOWN_SESSION',
          null,
          'Not Found: the Mcp-Session-Id is unknown, expired or not this caller’s',
        ),
      );
    return reply.code(204).send();
  }
}

/** The request's `Mcp-Session-Id`, when it sent exactly one. */
function sessionHeader(req: FastifyRequest): string | undefined {
  const id = req.headers['mcp-session-id'];
  return typeof id === 'string' ? id : undefined;
}

async function messagesNeedPost(_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return sendRpcReply(
    reply,
    httpRefusal(
      engineError(
        'METHOD_NOT_ALLOWED',
        'this endpoint is stateless; POST one JSON-RPC message per request',
      ),
      { allow: 'POST' },
    ),
  );
}

/** NOT_FOUND for `/mcp/<name>` when the spec has no toolset of that name, naming those it has. */
function noSuchToolset(url: string, name: string, gateway: Gateway): EngineError {
  const names = [...gateway.toolsets.keys()];
  const known =
    names.length === 0
      ? 'this spec has no toolsets'
      : `its toolsets: ${names.map((n) => `${MCP_PATH}/${n}`).join(', ')}`;
  // `/mcp/` is /mcp with a slash too many, not a toolset without a name.
  const what =
    name === ''
      ? `the MCP endpoint is ${MCP_PATH}`
      : `the spec has no toolset ${JSON.stringify(clipped(name))}`;
  return engineError(
    'NOT_FOUND',
    `nothing is served at POST ${url.split('?')[0]}: ${what} (${known})`,
  );
}

/** The body as text, read into a message (or its refusal) by the one parse of MCP's. */
function readBody(
  _req: FastifyRequest,
  body: string,
  done: (err: null, read: ReadMessage) => void,
): void {
  done(null, readMessage(body));
}

/**
 * The caller's cancellation, made on first use: only tools/call and a `from=` read need
 * one, and a close listener on every request showed in profiles.
 */
function lazyCancellation(reply: FastifyReply): () => Cancellation {
  let cancel: Cancellation | undefined;
  return () => {
    if (!cancel) {
      const c = (cancel = new Cancellation());
      // The response closing before it was written means the caller went away. `on`, not
      // `once`: a response closes once, and `once` wrapped the listener in a bound function
      // and removed it again on every request.
      if (reply.raw.destroyed && !reply.raw.writableFinished) c.cancel();
      else
        reply.raw.on('close', () => {
          if (!reply.raw.writableFinished) c.cancel();
        });
    }
    return cancel;
  };
}

/**
 * The MCP projection's error handler: a refusal at the edge (credential, origin), or a
 * framework error (body over the limit, broken framing), as JSON-RPC; each leaves its
 * span and duration point (refusal-telemetry.ts).
 */
function mcpErrorHandler(
  bodyLimit: number,
  observers: () => RefusalObservers,
): (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function answerMcpError(err, req, reply) {
    if (clientWentAway(err, req)) return reply;
    let out: RpcReply;
    if (err instanceof RefusedRequest) {
      const headers =
        err.challenge === undefined ? undefined : { 'www-authenticate': err.challenge };
      out = httpRefusal(err.refusal, headers);
    } else out = mcpFrameworkError(err, bodyLimit);
    const sent = sendRpcReply(reply, out);
    observeRefusal(req, reply, out.errorType ?? 'INTERNAL', observers());
    return sent;
  };
}

// The last Accept value and its answer: a client sends the same one on every request,
// and splitting it allocated a handful of strings and arrays per request.
let lastAccept: string | undefined;
let lastWants = false;

let lastStreamAccept: string | undefined;
let lastTakesStream = false;

/** Whether the client's Accept takes an event stream at all (a question is put on one). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept !== lastStreamAccept) {
    lastTakesStream = accept !== undefined && /text\/event-stream/i.test(accept);
    lastStreamAccept = accept;
  }
  return lastTakesStream;
}

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
function mcpFrameworkError(
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
      .send(
        typeof out.body === 'string'
          ? `event: message\ndata: ${out.body}\n\n`
          : Buffer.concat([EVENT_HEAD, out.body, EVENT_END]),
      );
  }
  // A text body is sent as fastify would label it, given the charset already: without it
  // fastify parsed the type and appended `; charset=utf-8` on every answer. Bytes (the
  // prepared lists) are labelled as before, without a charset.
  return reply
    .code(out.status)
    .type(typeof out.body === 'string' || out.jsonText ? JSON_TEXT : 'application/json')
    .send(out.body);
}

const JSON_TEXT = 'application/json; charset=utf-8';
/** An event-stream answer around a body of bytes (not decoded to text to be framed). */
const EVENT_HEAD = Buffer.from('event: message\ndata: ');
const EVENT_END = Buffer.from('\n\n');
