/**
 * The resources and prompts over REST, for the catalog page's try-it and any HTTP client:
 *   POST /api/resources/read  {"uri": "..."}                      → {"contents": [...]}
 *   POST /api/prompts/get     {"name": "...", "arguments": {...}} → {"messages": [...]}
 * The engine reads and gets (scopes, the grant's guards, the argument rules); this only
 * translates: a refusal is the catalogue error with its status, a missing scope 403 with
 * the challenge, as for POST /api/<tool>.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { authenticatedCaller, type Refusal } from '../../access/authenticate.js';
import { challengeOf } from '../../access/challenge.js';
import { Cancellation, type CallContext } from '../../engine/call-context.js';
import { engineError } from '../../engine/error-catalogue.js';
import type { ExactJson } from '../../engine/number-text.js';
import { clipped, ProblemList } from '../../engine/refusal-text.js';
import { continueTrace } from '../trace-context.js';
import { sendRestError } from './rest-error.js';
import type { RestRuntime } from './rest-runtime.js';
import { GET_PROMPT_PATH, READ_RESOURCE_PATH } from './resource-prompt-listing.js';

function callContext(req: FastifyRequest, reply: FastifyReply): CallContext {
  const cancel = new Cancellation();
  // The response closing before it was written means the caller went away.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.cancel();
  });
  const trace = continueTrace(req.headers.traceparent);
  return {
    cancel,
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    origin: { surface: 'rest', requestId: req.id },
  };
}

/**
 * The parsed JSON body (app.ts). Its number texts are not needed: a URI and a prompt's
 * arguments are strings.
 */
function bodyOf(req: FastifyRequest): unknown {
  return (req.body as ExactJson | undefined)?.value;
}

/** The request body's member, or the refusal naming it. */
function member(body: unknown, name: string, what: 'string' | 'object', optional = false) {
  const value =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)[name]
      : undefined;
  const ok =
    what === 'string'
      ? typeof value === 'string'
      : value !== null && typeof value === 'object' && !Array.isArray(value);
  if (ok || (optional && value === undefined)) return { ok: true as const, value };
  return {
    ok: false as const,
    error: engineError('INVALID_ARGUMENTS', `the JSON body needs "${name}" (a ${what})`, {
      details: [{ field: `/${name}`, message: `must be a ${what}` }],
    }),
  };
}

/**
 * A member the route does not read is refused, not ignored, as an undeclared tool argument
 * is: a caller who misspells `arguments` learns it instead of getting the defaults. This
 * comes before the engine's scope check, so it names the first few and counts the rest.
 */
function undeclared(body: unknown, route: string, known: readonly string[]) {
  const problems = new ProblemList();
  for (const k of Object.keys(body as object))
    if (!known.includes(k)) problems.add(`/${clipped(k)}`, 'is not a member of this request');
  return problems.refusal(
    `POST ${route} takes ${known.map((k) => `"${k}"`).join(' and ')}`,
    (p) => `${JSON.stringify(p.field.slice(1))} ${p.message}`,
  );
}

export function registerResourcePromptRoutes(
  app: FastifyInstance,
  current: () => RestRuntime,
  onRequest: onRequestHookHandler,
  refuse: (reply: FastifyReply, who: Refusal) => FastifyReply,
): void {
  app.post(READ_RESOURCE_PATH, { onRequest }, async (req, reply) => {
    const { gateway, access, restListing } = current();
    const who = await authenticatedCaller(req, access);
    if (!who.ok) return refuse(reply, who);
    const json = bodyOf(req);
    const uri = member(json, 'uri', 'string');
    if (!uri.ok) return sendRestError(reply, uri.error);
    const extra = undeclared(json, READ_RESOURCE_PATH, ['uri']);
    if (extra) return sendRestError(reply, extra);
    const read = await gateway.readResource(
      uri.value as string,
      who.caller,
      callContext(req, reply),
    );
    if (!read.ok) return sendRestError(reply, read.error, challengeOf(access, req, read.error));
    const body =
      restListing.fixedRead(read.resource) ?? JSON.stringify({ contents: [read.contents] });
    return reply.code(200).type('application/json; charset=utf-8').send(body);
  });

  app.post(GET_PROMPT_PATH, { onRequest }, async (req, reply) => {
    const { gateway, access } = current();
    const who = await authenticatedCaller(req, access);
    if (!who.ok) return refuse(reply, who);
    const json = bodyOf(req);
    const name = member(json, 'name', 'string');
    if (!name.ok) return sendRestError(reply, name.error);
    const args = member(json, 'arguments', 'object', true);
    if (!args.ok) return sendRestError(reply, args.error);
    const extra = undeclared(json, GET_PROMPT_PATH, ['name', 'arguments']);
    if (extra) return sendRestError(reply, extra);
    const got = await gateway.getPrompt(
      name.value as string,
      args.value,
      who.caller,
      callContext(req, reply),
    );
    if (!got.ok) return sendRestError(reply, got.error, challengeOf(access, req, got.error));
    const { prompt, messages } = got;
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send(
        JSON.stringify({
          ...(prompt.description !== undefined && { description: prompt.description }),
          messages,
        }),
      );
  });

  // Read and get are POSTs; other methods are told so, as for POST /api/<tool>.
  for (const url of [READ_RESOURCE_PATH, GET_PROMPT_PATH])
    app.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url,
      handler: (_req, reply) =>
        sendRestError(
          reply,
          engineError(
            'METHOD_NOT_ALLOWED',
            `use POST ${url} with a JSON body; GET /api lists what there is`,
          ),
          undefined,
          { allow: 'POST' },
        ),
    });
}
