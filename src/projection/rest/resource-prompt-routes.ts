/**
 * The resources and prompts over REST, for the catalog page's try-it and any HTTP client:
 *   POST /api/resources/read  {"uri": "..."}                      → {"contents": [...]}
 *   POST /api/prompts/get     {"name": "...", "arguments": {...}} → {"messages": [...]}
 * The engine reads and gets (scopes, the grant's guards, the argument rules); this only
 * translates: a refusal is the catalogue error with its status, a missing scope 403 with
 * the challenge, as for POST /api/<tool>.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallerGate } from '../../access/authenticate.js';
import { challengeOf } from '../../access/challenge.js';
import { engineError } from '../../engine/error-catalogue.js';
import type { ExactJson } from '../../json/number-text.js';
import { clipped, ProblemList } from '../../engine/refusal-text.js';
import { sendRestError } from './rest-error.js';
import { requestScopeOf } from './rest-call-context.js';
import type { RestRuntime } from './rest-runtime.js';
import { GET_PROMPT_PATH, READ_RESOURCE_PATH } from './resource-prompt-listing.js';

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
/**
 * The parsed JSON body (rest-body.ts). Its number texts are not needed: a URI and a
 * prompt's arguments are strings.
 */
function bodyOf(req: FastifyRequest): unknown {
  return (req.body as ExactJson | undefined)?.value;
}

function undeclared(body: unknown, route: string, known: readonly string[]) {
  const problems = new ProblemList();
  for (const k of Object.keys(body as object))
    if (!known.includes(k)) problems.add(`/${clipped(k)}`, 'is not a member of this request');
  return problems.refusal(
    `POST ${route} takes ${known.map((k) => `"${k}"`).join(' and ')}`,
    (p) => `${JSON.stringify(p.field.slice(1))} ${p.message}`,
  );
}

/** The routes, in the REST projection's encapsulation context (its parser, errors and gate). */
export function registerResourcePromptRoutes(
  scope: FastifyInstance,
  gate: CallerGate<RestRuntime>,
): void {
  const { hooks } = gate;
  scope.post(READ_RESOURCE_PATH, hooks, async function readResource(req, reply) {
    const { runtime, caller } = gate.served(req);
    const { gateway, access, restListing } = runtime;
    const json = bodyOf(req);
    const uri = member(json, 'uri', 'string');
    if (!uri.ok) return sendRestError(reply, uri.error);
    const extra = undeclared(json, READ_RESOURCE_PATH, ['uri']);
    if (extra) return sendRestError(reply, extra);
    const read = await gateway
      .view()
      .readResource(uri.value as string, requestScopeOf(req, reply, caller, access.baseUrl(req)));
    if (!read.ok) return sendRestError(reply, read.error, challengeOf(access, req, read.error));
    const body =
      restListing.fixedRead(read.resource) ?? JSON.stringify({ contents: [read.contents] });
    return reply.code(200).type('application/json; charset=utf-8').send(body);
  });

  scope.post(GET_PROMPT_PATH, hooks, async function getPrompt(req, reply) {
    const { runtime, caller } = gate.served(req);
    const { gateway, access } = runtime;
    const json = bodyOf(req);
    const name = member(json, 'name', 'string');
    if (!name.ok) return sendRestError(reply, name.error);
    const args = member(json, 'arguments', 'object', true);
    if (!args.ok) return sendRestError(reply, args.error);
    const extra = undeclared(json, GET_PROMPT_PATH, ['name', 'arguments']);
    if (extra) return sendRestError(reply, extra);
    const got = await gateway
      .view()
      .getPrompt(
        name.value as string,
        args.value,
        requestScopeOf(req, reply, caller, access.baseUrl(req)),
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
    scope.route({
      method: ['GET', 'PUT', 'PATCH', 'DELETE'],
      url,
      handler: function readOrGetNeedsPost(_req, reply) {
        return sendRestError(
          reply,
          engineError(
            'METHOD_NOT_ALLOWED',
            `use POST ${url} with a JSON body; GET /api lists what there is`,
          ),
          undefined,
          { allow: 'POST' },
        );
      },
    });
}
