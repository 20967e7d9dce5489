/**
 * The REST projection: `POST /api/<tool>` with the arguments as the JSON body, and
 * `GET /api` listing the tools. It translates HTTP to an engine call and back; every
 * decision (validation, allowlists, scopes) is the engine's.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Gateway } from '../../engine/gateway.js';
import { engineError } from '../../engine/error-catalogue.js';
import { restError } from './rest-error.js';
import type { CallerResolver } from '../../server/caller-resolver.js';

export function registerRestRoutes(
  app: FastifyInstance,
  gateway: Gateway,
  resolveCaller: CallerResolver,
): void {
  const listing = JSON.stringify({
    tools: [...gateway.operations.values()].map(({ descriptor: d }) => ({
      name: d.name,
      title: d.title,
      ...(d.description !== undefined && { description: d.description }),
      method: 'POST',
      path: `/api/${d.name}`,
      inputSchema: d.inputSchema,
      annotations: d.annotations,
    })),
  });

  app.get('/api', async (_req, reply) => {
    return reply.type('application/json; charset=utf-8').send(listing);
  });

  app.post<{ Params: { tool: string } }>('/api/:tool', async (req, reply) => {
    const op = gateway.operation(req.params.tool);
    if (!op)
      return sendError(
        reply,
        engineError(
          'UNKNOWN_TOOL',
          `no tool named ${JSON.stringify(req.params.tool)}; GET /api lists the tools`,
        ),
      );
    const caller = await resolveCaller(req);
    if (!caller.ok) return sendError(reply, caller.error);
    // An empty body is a call with no arguments.
    const input = req.body === undefined || req.body === null ? {} : req.body;
    const abort = new AbortController();
    // The response closing before it was written means the caller went away.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const out = await gateway.call(op, input, caller.caller, { signal: abort.signal });
    if (!out.ok) return sendError(reply, out.error);
    return reply.code(200).type('application/json; charset=utf-8').send(out.envelope.json);
  });
}

function sendError(reply: FastifyReply, e: Parameters<typeof restError>[0]): FastifyReply {
  const r = restError(e);
  return reply.code(r.status).headers(r.headers).send(r.body);
}
