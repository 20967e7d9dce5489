/**
 * The REST projection: `POST /api/<tool>` with the arguments as the JSON body, and
 * `GET /api` and `GET /openapi.json` describing the tools the caller may call (GET /api
 * also its resources and prompts, read and got with resource-prompt-routes.ts), of the
 * whole spec or, with `?toolset=<name>`, of that toolset's members only. It
 * translates HTTP to an engine call and back; every decision (validation, allowlists,
 * scopes) is the engine's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { METADATA_PATH, type AccessControl } from '../../access/access-control.js';
import { engineError } from '../../engine/error-catalogue.js';
import type { Gateway } from '../../engine/gateway.js';
import type { VisibleTools } from '../../engine/view/visibility.js';
import { restErrorHandler, sendRestError } from './rest-error.js';
import { buildOpenApi, OPENAPI_PATH } from './openapi.js';
import { gateCallers } from '../../access/authenticate.js';
import { challengeOf } from '../../access/challenge.js';
import { callArguments } from '../../engine/call-arguments.js';
import type { ExactJson } from '../../json/number-text.js';
import { prepareResourcePromptListing, servedKinds } from './resource-prompt-listing.js';
import { toolsetOf } from './toolset-query.js';
import type { Toolset } from '../../engine/view/toolsets.js';
import { MCP_PATH } from '../mcp/mcp-routes.js';
import { registerResourcePromptRoutes } from './resource-prompt-routes.js';
import { registerApprovalRoutes } from './approval-routes.js';
import { registerConfirmationRoutes } from './confirmation-routes.js';
import { registerConnectionApiRoutes } from '../../connections/connection-api-routes.js';
import { registerSessionRoute } from './session-routes.js';
import { readRestBodies } from './rest-body.js';
import { requestScopeOf } from './rest-call-context.js';
import type { RestListing, RestRuntime } from './rest-runtime.js';
import type { Caller } from '../../engine/caller.js';
import { NO_SPAN, type Span } from '../../telemetry/span.js';
import { recordCall } from '../../telemetry/call-span.js';
import { traceRestCall } from './rest-call-span.js';
import type { ErrorCode } from '../../engine/error-catalogue.js';
import type { OperationHistograms } from '../../telemetry/operation-histograms.js';
import { observeRefusal } from '../refusal-telemetry.js';
import { envelopeParts } from '../../envelope/envelope.js';
import { bytesOfParts, LARGE_ANSWER_CHARS } from '../../json/text-parts.js';

export type { RestListing, RestRuntime } from './rest-runtime.js';

export function prepareRestListing(gateway: Gateway): RestListing {
  // Each tool's entry is serialized once, by the first GET /api rather than at boot: it
  // is a payload (frozen descriptors as JSON, which cannot fail), and a large spec's
  // start-up need not wait for a listing most deployments of it never read.
  let entries: Map<string, string> | undefined;
  const entriesOnce = (): Map<string, string> =>
    (entries ??= new Map(
      [...gateway.operations.values()].map(({ descriptor: d }) => [
        d.name,
        JSON.stringify({
          name: d.name,
          title: d.title,
          ...(d.description !== undefined && { description: d.description }),
          method: 'POST',
          path: `/api/${d.name}`,
          inputSchema: d.inputSchema,
          annotations: d.annotations,
        }),
      ]),
    ));
  const listing = prepareResourcePromptListing(gateway.spec, gateway.resources);
  // The whole listing names every toolset (spec order), whatever the caller may call in
  // it: the names are no secret from an authenticated caller, and they say where to go.
  // A spec without toolsets keeps its body as it was.
  const toolsets = [...gateway.toolsets.values()];
  const toolsetsMember =
    toolsets.length > 0 ? `,"toolsets":[${toolsets.map(toolsetEntry).join(',')}]` : '';
  // Which tools, resources and prompts is the engine's answer; the body is built once per
  // view it returns, per toolset (the whole listing's under undefined).
  const bodies = new Map<Toolset | undefined, WeakMap<VisibleTools, string>>();
  return {
    forCaller(caller, toolset) {
      const view = gateway.view(toolset).visibleTo(caller);
      let built = bodies.get(toolset);
      if (!built) bodies.set(toolset, (built = new WeakMap()));
      let body = built.get(view);
      if (body === undefined) {
        const entries = entriesOnce();
        const tools = view.operations.map((op) => entries.get(op.name)!).join(',');
        body = toolset
          ? `{"toolset":${toolsetEntry(toolset)},"tools":[${tools}]${listing.membersOf(view, servedKinds(toolset))}}`
          : `{"tools":[${tools}]${listing.membersOf(view)}${toolsetsMember}}`;
        built.set(view, body);
      }
      return body;
    },
    fixedRead: listing.fixedRead,
  };
}

/** A toolset as GET /api names it: its `describe`, and the URL it is served at. */
function toolsetEntry(t: Toolset): string {
  const { description } = t.descriptor;
  return JSON.stringify({
    name: t.name,
    ...(description !== undefined && { description }),
    path: `${MCP_PATH}/${t.name}`,
  });
}

export interface RestOptions {
  /** The runtime serving now; a reload replaces what this returns. */
  readonly current: () => RestRuntime;
  readonly bodyLimit: number;
  /**
   * Where each tool call's duration goes (`http_server_request_duration_seconds`), a
   * request refused before its handler ran (401, 413, a body that is no JSON) included.
   */
  readonly metrics?: Pick<OperationHistograms, 'observeHttpServer'>;
}

/**
 * The route of a tool call as `http.route` has it: the template in the conventions' form,
 * the same text as the call's span name (`POST /api/{tool}`), not fastify's `:tool`.
 */
export const TOOL_ROUTE = '/api/{tool}';

/**
 * The REST projection as a fastify plugin: its body parser, its error handler and its
 * caller gate hold for its routes only (fastify's encapsulation), so nothing outside it
 * knows which URLs are REST's.
 */
export async function restProjection(scope: FastifyInstance, opts: RestOptions): Promise<void> {
  readRestBodies(scope, opts.bodyLimit);
  scope.setErrorHandler(
    restErrorHandler(opts.bodyLimit, (req, reply, errorType) =>
      observeRefusal(req, reply, errorType, {
        telemetry: opts.current().telemetry,
        metrics: opts.metrics,
      }),
    ),
  );
  // Every route here that serves needs a caller: it is known (or refused) before any body is read.
  const gate = gateCallers(scope, opts.current);
  const { hooks } = gate;

  scope.get('/api', hooks, async function listTools(req, reply) {
    const { runtime, caller } = gate.served(req);
    const asked = toolsetOf(req, runtime.gateway);
    if (!asked.ok) return sendRestError(reply, asked.error);
    const body = runtime.restListing.forCaller(caller, asked.toolset);
    return reply
      .header('cache-control', cacheControl(runtime.access))
      .type('application/json; charset=utf-8')
      .send(body);
  });

  // The document per runtime, per toolset, set of visible tools and base URL; a reload
  // starts afresh.
  const openApiCache = new WeakMap<RestRuntime, Map<string, string>>();
  scope.get(OPENAPI_PATH, hooks, async function describeTools(req, reply) {
    const { runtime, caller } = gate.served(req);
    const { access, gateway } = runtime;
    const asked = toolsetOf(req, gateway);
    if (!asked.ok) return sendRestError(reply, asked.error);
    const { toolset } = asked;
    const visible = gateway.view(toolset).visibleTo(caller);
    const serverUrl = baseUrl(access, req);
    // A name cannot hold a newline, so no whole-spec key equals a toolset's.
    const key = `${serverUrl}\n${visible.key}${toolset ? `\n${toolset.name}` : ''}`;
    let cache = openApiCache.get(runtime);
    if (!cache) openApiCache.set(runtime, (cache = new Map()));
    let body = cache.get(key);
    if (body === undefined) {
      body = JSON.stringify(
        buildOpenApi(gateway.spec, {
          serverUrl,
          visible: (d) => visible.has(d.name),
          resourcesAndPrompts: visible,
          ...(toolset && { toolset: toolset.descriptor, serves: servedKinds(toolset) }),
        }),
      );
      // Host headers vary; a bounded cache cannot be grown without limit by sending many.
      if (cache.size >= 64) cache.clear();
      cache.set(key, body);
    }
    return reply
      .header('cache-control', cacheControl(access))
      .type('application/json; charset=utf-8')
      .send(body);
  });

  registerResourcePromptRoutes(scope, gate);
  registerApprovalRoutes(scope, gate);
  registerConfirmationRoutes(scope, gate);
  registerConnectionApiRoutes(scope, gate);
  registerSessionRoute(scope, opts.current);

  scope.post<{ Params: { tool: string } }>(
    '/api/:tool',
    hooks,
    // Not async: the answer's own promise is the handler's, so off costs no second one.
    function postTool(req, reply) {
      const started = req.beaverStarted;
      const { runtime, caller } = gate.served(req);
      // A span per call only with telemetry on (issue 30); off, NO_SPAN's calls are free.
      const { telemetry } = runtime;
      if (telemetry?.on)
        return traceRestCall(telemetry, req, reply, runtime.gateway, (span) =>
          answerCall(req, reply, runtime, caller, span, started),
        );
      return answerCall(req, reply, runtime, caller, NO_SPAN, started);
    },
  );

  async function answerCall(
    req: FastifyRequest<{ Params: { tool: string } }>,
    reply: FastifyReply,
    runtime: RestRuntime,
    caller: Caller,
    span: Span,
    started: number,
  ): Promise<undefined> {
    // Every answer of the route is one observation of http.server.request.duration.
    // The call resolves with nothing once sent, not with the reply: a reply is a
    // thenable, and a promise resolved with one adopts it (one more job per call).
    const answered = (sent: FastifyReply, errorType?: ErrorCode): undefined => {
      opts.metrics?.observeHttpServer(
        {
          method: 'POST',
          route: TOOL_ROUTE,
          status: sent.statusCode,
          ...(errorType !== undefined && { errorType }),
        },
        (performance.now() - started) / 1000,
      );
      return undefined;
    };
    const { gateway, access } = runtime;
    const op = gateway.view().operation(req.params.tool);
    if (!op) {
      span.fail('UNKNOWN_TOOL');
      return answered(
        sendRestError(
          reply,
          engineError(
            'UNKNOWN_TOOL',
            `no tool named ${JSON.stringify(req.params.tool)}; GET /api lists the tools`,
          ),
        ),
        'UNKNOWN_TOOL',
      );
    }
    // An empty body is a call with no arguments; what else may be is the engine's decision.
    const input = callArguments(op.name, req.body as ExactJson | undefined);
    if (!input.ok) {
      span.fail(input.error.code);
      return answered(sendRestError(reply, input.error), input.error.code);
    }
    const scope = requestScopeOf(
      req,
      reply,
      caller,
      access.baseUrl(req),
      span,
      gateway.spec.oauthProviders.length > 0,
    );
    const out = await gateway.call(op, input.args, scope);
    if (span.recording) recordCall(span, op, caller, out);
    if (!out.ok)
      return answered(
        sendRestError(reply, out.error, challengeOf(access, req, out.error)),
        out.error.code,
      );
    const { json } = out.envelope;
    return answered(
      reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send(json.length > LARGE_ANSWER_CHARS ? bytesOfParts(envelopeParts(out.envelope)) : json),
    );
  }

  // A tool is called with POST; any name gets the same answer, so it tells no stranger
  // which tools exist (HEAD comes with GET).
  scope.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: '/api/:tool',
    handler: function toolNeedsPost(_req, reply) {
      return sendRestError(
        reply,
        engineError(
          'METHOD_NOT_ALLOWED',
          'call a tool with POST /api/<tool> and its arguments as a JSON body; GET /api lists the tools',
        ),
        undefined,
        { allow: 'POST' },
      );
    },
  });
}

/** Listings are the same for every caller without access; with it, each caller's own. */
function cacheControl(access: AccessControl): string {
  return access.enabled ? 'private, max-age=60' : 'public, max-age=60';
}

/** The gateway's base URL as this request reaches it (--public-url when set): its metadata URL's origin and prefix. */
function baseUrl(access: AccessControl, req: FastifyRequest): string {
  const meta = access.metadataUrl(req);
  return meta.slice(0, meta.lastIndexOf(METADATA_PATH));
}
