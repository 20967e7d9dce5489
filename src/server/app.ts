/**
 * The fastify wiring: body parsing and limits, request ids, the request guard,
 * health and readiness, the projections' routes, and errors mapped to the catalogue
 * (never the framework's own error bodies).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyError,
} from 'fastify';
import { engineError, type EngineError } from '../engine/error-catalogue.js';
import { registerRestRoutes } from '../projection/rest/rest-routes.js';
import {
  httpRefusal,
  MCP_PATH,
  mcpFrameworkError,
  registerMcpRoutes,
  sendRpcReply,
} from '../projection/mcp/mcp-routes.js';
import { sendRestError } from '../projection/rest/rest-error.js';
import { registerMetadataRoutes } from '../access/metadata-routes.js';
import { registerCatalogRoutes } from '../projection/catalog/catalog-routes.js';
import type { Runtime } from './runtime.js';
import { METRICS_SCOPE, type Metrics } from './metrics.js';
import { MAX_INPUT_DEPTH, nestsDeeperThan } from '../engine/json-depth.js';
import { parseJson } from '../engine/number-text.js';
import {
  authenticateFirst,
  authenticatedCaller,
  declareCallerSlot,
} from '../access/authenticate.js';
import { missingScopes } from '../engine/guards/scopes.js';
import { challengeOf } from '../access/challenge.js';
import { answerClientError } from './client-errors.js';
import { lazyRequestLogger } from './request-logger.js';

export const BODY_LIMIT = 4 * 1024 * 1024;
/** Slowloris: the whole header block of a request must arrive within this. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * How often node looks for requests over their header or request timeout. Node's default
 * (30 s) let a slow-header socket live 10 to 40 s; checked every second, the header
 * timeout holds to within a second.
 */
const TIMEOUT_CHECK_MS = 1_000;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  /** The runtime serving now; a reload replaces what this returns. */
  readonly current: () => Runtime;
  readonly logger: FastifyBaseLogger | false;
  readonly metrics: Metrics;
  /** Public base URL behind a proxy, for RFC 9728 metadata. */
  readonly publicUrl?: string;
  /** The longest grant deadline, which bounds how long a request may take. */
  readonly longestCallMs: number;
  /**
   * Serve GET /metrics on this port too (false when --metrics-http gives metrics a
   * listener of their own). With `access`, reading them here needs the metrics:read scope.
   */
  readonly metricsHere: boolean;
}

export function buildApp(opts: AppOptions): FastifyInstance {
  const { current } = opts;
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    // One access line per request comes from our onResponse hook, not fastify's pair.
    logController: new LogController({ disableRequestLogging: true }),
    // req.log is made when a request first writes a line (request-logger.ts); without a
    // logger fastify makes no child at all.
    ...(opts.logger && { childLoggerFactory: lazyRequestLogger }),
    bodyLimit: BODY_LIMIT,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    // Node's own refusals (malformed request, headers too large, timeouts) in the catalogue's shape.
    // fastify calls it with itself as `this`.
    clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
      answerClientError(err, socket, this.log);
    },
    // Slowloris: a request must arrive whole quickly; a call may take its grant's timeout.
    requestTimeout: opts.longestCallMs + 15_000,
    connectionTimeout: opts.longestCallMs + 20_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    // Router errors (a malformed %-escape, a path parameter over maxParamLength) skip the
    // error handler; without this fastify answers them with its own body (414 and 400).
    frameworkErrors: (_err, req, reply) => void notFound(req, reply as FastifyReply),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  declareCallerSlot(app);

  // Our own JSON parser: JSON.parse, keeping the text of numbers a double would change
  // (number-text.ts; duplicate keys: last wins, and the engine forwards only the
  // re-serialized validated object), errors mapped to the catalogue. A body is the
  // ExactJson it returns (value and texts), or undefined when empty.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i,
    { parseAs: 'string' },
    (_req, body, done) => {
      const text = String(body);
      if (text.trim() === '') return done(null, undefined);
      if (nestsDeeperThan(text, MAX_INPUT_DEPTH)) {
        const e = Object.assign(
          new Error(`request body nests deeper than ${MAX_INPUT_DEPTH} levels`),
          { statusCode: 400, code: 'INVALID_JSON' },
        );
        return done(e, undefined);
      }
      try {
        done(null, parseJson(text));
      } catch (err) {
        const e = Object.assign(
          new Error(`request body is not valid JSON: ${(err as Error).message}`),
          { statusCode: 400, code: 'INVALID_JSON' },
        );
        done(e, undefined);
      }
    },
  );

  // Callback form (no promise per request); a refusal answers without calling done.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    const verdict = current().guard({ origin: req.headers.origin, host: req.headers.host });
    if (verdict.ok) return done();
    req.log.warn({ reason: verdict.reason }, 'request refused by guard');
    const refused = engineError('FORBIDDEN_ORIGIN', verdict.reason);
    if (isMcp(req)) void sendRpcReply(reply, httpRefusal(refused));
    else void sendRestError(reply, refused);
  });

  app.get('/healthz', async (_req, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const { gateway } = current();
    const ready = await gateway.ready();
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : gateway.isDraining ? 'draining' : 'not ready' });
  });

  // Draining: answers given while closing end their connection, so close() does not wait
  // for the callers' idle keep-alive sockets to time out before the process can exit.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take fastify's callback form: an async hook costs a promise
  // per request, which showed in profiles under load.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });

  // The access line is info: below that level the hook is not installed at all.
  const logger = opts.logger as
    (FastifyBaseLogger & { isLevelEnabled?(l: string): boolean }) | false;
  if (logger && (logger.isLevelEnabled?.('info') ?? true)) {
    app.addHook('onResponse', (req, reply, done) => {
      // Path only: a query string may carry something a caller should not have sent. The
      // request logger already binds reqId.
      req.log.info(
        {
          method: req.method,
          path: req.url.split('?')[0],
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
      done();
    });
  }

  if (opts.metricsHere) registerMetricsRoute(app, current, opts.metrics);

  registerRestRoutes(app, current);
  registerMcpRoutes(app, current, BODY_LIMIT);
  registerMetadataRoutes(app, () => current().spec, MCP_PATH, opts.publicUrl);
  registerCatalogRoutes(app, current);

  app.setNotFoundHandler(notFound);
  // The one handler for errors the framework raises (body limits, parsers, bugs), for
  // every route: answered in the shape of the surface the request was for.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    // The caller went away mid-upload: nobody is left to answer, and it is no fault of ours.
    if (req.raw.aborted || (err.code === 'ECONNRESET' && req.raw.destroyed)) {
      req.log.info({ code: err.code }, 'client closed the connection before its body arrived');
      return reply;
    }
    if (isMcp(req)) return sendRpcReply(reply, mcpFrameworkError(err, BODY_LIMIT));
    const mapped = mapFrameworkError(err);
    if (mapped.code === 'INTERNAL') req.log.error({ err }, 'unhandled error');
    return sendRestError(reply, mapped);
  });
  return app;
}

/**
 * GET /metrics on the main port. Tool names, counts and outcome codes say what a
 * gateway serves: with `access`, only a caller holding metrics:read reads them (a
 * stranger gets 401, a key without the scope 403); without it, as any other route.
 */
function registerMetricsRoute(
  app: FastifyInstance,
  current: () => Runtime,
  metrics: Metrics,
): void {
  const onRequest = authenticateFirst(current, (reply, who) =>
    sendRestError(reply, who.error, who.challenge),
  );
  app.get('/metrics', { onRequest }, async (req, reply) => {
    const { access } = current();
    const who = await authenticatedCaller(req, access);
    if (!who.ok) return sendRestError(reply, who.error, who.challenge);
    if (missingScopes([METRICS_SCOPE], who.caller).length > 0) {
      const refused = engineError(
        'INSUFFICIENT_SCOPE',
        `reading /metrics needs scope ${METRICS_SCOPE}`,
        { details: { required: [METRICS_SCOPE], missing: [METRICS_SCOPE] } },
      );
      return sendRestError(reply, refused, challengeOf(access, req, refused));
    }
    const { registry } = metrics;
    return reply
      .header('cache-control', 'no-store')
      .type(registry.contentType)
      .send(await registry.metrics());
  });
}

/** The MCP endpoint's requests; every other path answers in the REST shape. */
function isMcp(req: FastifyRequest): boolean {
  return req.url.split('?')[0] === MCP_PATH;
}

/** Nothing served here: an unknown route, or one the router could not even match. */
function notFound(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendRestError(
    reply,
    engineError('NOT_FOUND', `nothing is served at ${req.method} ${req.url.split('?')[0]}`),
  );
}

function mapFrameworkError(err: FastifyError): EngineError {
  switch (err.code) {
    case 'INVALID_JSON':
      return engineError('INVALID_JSON', err.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return engineError('PAYLOAD_TOO_LARGE', `request body is over ${BODY_LIMIT} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return engineError('UNSUPPORTED_MEDIA_TYPE', 'send the arguments as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return engineError('INVALID_JSON', 'request body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return engineError('INVALID_JSON', 'request body length does not match Content-Length');
    default:
      if (err.statusCode === 413)
        return engineError('PAYLOAD_TOO_LARGE', `request body is over ${BODY_LIMIT} bytes`);
      if (err.statusCode === 415)
        return engineError('UNSUPPORTED_MEDIA_TYPE', 'send the arguments as application/json');
      return engineError('INTERNAL', 'internal error');
  }
}
