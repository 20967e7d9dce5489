/**
 * The fastify wiring of what is process-wide: limits and timeouts, request ids, the
 * Origin/Host guard, health and readiness, the access log, node's own client errors, and
 * the fallback for routes outside any projection (the catalogue's shape, never the
 * framework's own error bodies). Each projection is a plugin owning its body parser,
 * refusals and error handler, so nothing here knows which surface a URL belongs to.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { engineError } from '../engine/error-catalogue.js';
import { RefusedRequest } from '../access/refused-request.js';
import { restProjection } from '../projection/rest/rest-routes.js';
import { readRestBodies } from '../projection/rest/rest-body.js';
import { MCP_PATH, mcpProjection } from '../projection/mcp/mcp-routes.js';
import { restErrorHandler, sendRestError } from '../projection/rest/rest-error.js';
import { registerMetadataRoutes } from '../access/metadata-routes.js';
import type { registerSignInRoutes } from '../access/sign-in/sign-in-routes.js';
import type { registerConnectRoutes } from '../connections/connect-routes.js';
import { catalogProjection } from '../projection/catalog/catalog-routes.js';
import type { Runtime } from './runtime.js';
import type { Metrics } from '../telemetry/metrics.js';
import { metricsRoute } from './metrics-route.js';
import { answerClientError } from './client-errors.js';
import { drainUnreadBody } from './unread-body.js';
import { lazyRequestLogger } from './request-logger.js';
import type { Telemetry } from '../telemetry/telemetry.js';

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
/** The liveness and readiness probes: their access lines are debug while they pass. */
const PROBES = new Set(['/healthz', '/readyz']);

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
  /** The server's telemetry (TELEMETRY_OFF when absent), for the request spans. */
  readonly telemetry?: Telemetry;
  /** With `sign-in`: registers the authorization server's routes (loaded only then). */
  readonly signInRoutes?: typeof registerSignInRoutes;
  /** With an `oauth-provider`: registers the connect pages (loaded only then). */
  readonly connectRoutes?: typeof registerConnectRoutes;
}

export function buildApp(opts: AppOptions): FastifyInstance {
  const { current } = opts;
  const bodyLimit = BODY_LIMIT;
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    // One access line per request comes from our onResponse hook, not fastify's pair.
    logController: new LogController({ disableRequestLogging: true }),
    // req.log is made when a request first writes a line (request-logger.ts); without a
    // logger fastify makes no child at all.
    ...(opts.logger && { childLoggerFactory: lazyRequestLogger }),
    bodyLimit,
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
  // Routes outside any projection (and nothing served at all) read a body as REST does:
  // a 404 is the answer to a well-formed request, a malformed body is still a 400.
  readRestBodies(app, bodyLimit);

  // Callback form (no promise per request); a refusal is framed by the error handler of
  // the route's own plugin (JSON-RPC on the MCP endpoint), the fallback one elsewhere.
  app.addHook('onRequest', function guardRequest(req, reply, done) {
    reply.header('x-request-id', req.id);
    const verdict = current().guard({ origin: req.headers.origin, host: req.headers.host });
    if (verdict.ok) return done();
    req.log.warn({ reason: verdict.reason }, 'request refused by guard');
    done(new RefusedRequest(engineError('FORBIDDEN_ORIGIN', verdict.reason)));
  });

  app.get('/healthz', async (_req, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const { gateway } = current();
    const ready = await gateway.ready();
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : gateway.isDraining ? 'draining' : 'not ready',
      ...gateway.readiness(),
    });
  });

  // Draining: answers given while closing end their connection, so close() does not wait
  // for the callers' idle keep-alive sockets to time out before the process can exit.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take fastify's callback form: an async hook costs a promise
  // per request, which showed in profiles under load.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    // Answered before the body arrived: the rest is read (bounded) before the socket
    // closes under a client still sending, which would lose it the answer.
    else drainUnreadBody(req.raw);
    done(null, payload);
  });

  // The access line is info: below that level the hook is not installed at all.
  const logger = opts.logger as
    (FastifyBaseLogger & { isLevelEnabled?(l: string): boolean }) | false;
  if (logger && (logger.isLevelEnabled?.('info') ?? true)) {
    app.addHook('onResponse', (req, reply, done) => {
      // Path only: a query string may carry something a caller should not have sent. The
      // request logger already binds reqId.
      const path = req.url.split('?')[0]!;
      const line = {
        method: req.method,
        path,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      };
      // A probe answered every few seconds would bury the calls: its line is debug, unless
      // it failed (a 503 of /readyz is what an operator looks for).
      if (PROBES.has(path) && reply.statusCode < 400) req.log.debug(line, 'request');
      else req.log.info(line, 'request');
      done();
    });
  }

  if (opts.metricsHere)
    void app.register(metricsRoute, { current, metrics: opts.metrics, bodyLimit });
  void app.register(restProjection, { current, bodyLimit, metrics: opts.metrics });
  void app.register(mcpProjection, { current, bodyLimit, metrics: opts.metrics });
  void app.register(catalogProjection, { current, bodyLimit });
  registerMetadataRoutes(
    app,
    () => current().spec,
    MCP_PATH,
    opts.publicUrl,
    () => current().signIn !== undefined && current().spec.access?.signIn !== undefined,
  );
  opts.signInRoutes?.(app, {
    current,
    mcpPath: MCP_PATH,
    bodyLimit,
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
  });

  opts.connectRoutes?.(app, () => {
    const runtime = current();
    return {
      access: runtime.access,
      signInPages: runtime.signIn !== undefined && runtime.spec.access?.signIn !== undefined,
      ...(runtime.connections && { connections: runtime.connections }),
    };
  });

  app.setNotFoundHandler(notFound);
  // The fallback for errors the framework raises (body limits, the parser's, bugs) on a
  // route outside any projection, and for refusals of a request nothing serves.
  app.setErrorHandler(restErrorHandler(bodyLimit));
  return app;
}

/** Nothing served here: an unknown route, or one the router could not even match. */
function notFound(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendRestError(
    reply,
    engineError('NOT_FOUND', `nothing is served at ${req.method} ${req.url.split('?')[0]}`),
  );
}
