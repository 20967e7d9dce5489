/**
 * What a request refused at the edge leaves for an operator (issue 39): a credential
 * refused (401), an Origin refused (403), a body over the limit (413), a body the parser
 * could not read — answered by a projection's error handler before any handler ran,
 * so before any MCP method or tool is known. It is an HTTP request answered: a point on
 * `http.server.request.duration` under its route (`/mcp`, `/api/{tool}`), and, with
 * telemetry on, a SERVER span `POST /mcp` with the HTTP conventions' attributes,
 * `error.type` the catalogue code and `mcp_beaver.refused_by` the guard. Nothing of the
 * body or the credential is read for it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpServerAttributes, refusedBy, routeTemplate } from '../telemetry/conventions.js';
import type { OperationHistograms } from '../telemetry/operation-histograms.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { parentOf } from './mcp/request-span.js';

export interface RefusalObservers {
  readonly telemetry: Telemetry | undefined;
  readonly metrics: Pick<OperationHistograms, 'observeHttpServer'> | undefined;
}

/** Called once the refusal's answer is on `reply` (its status set). */
export function observeRefusal(
  req: FastifyRequest,
  reply: FastifyReply,
  errorType: string,
  { telemetry, metrics }: RefusalObservers,
): void {
  // A request the gate never saw (a framework error before its hook) counts from now.
  const started = req.beaverStarted || performance.now();
  // The route as registered, in the conventions' template form; fastify knows it
  // before any hook runs. Never the path as sent: that is the caller's text.
  const route = routeTemplate(req.routeOptions.url ?? '');
  const status = reply.statusCode;
  metrics?.observeHttpServer(
    { method: req.method, route, status, errorType },
    (performance.now() - started) / 1000,
  );
  if (!telemetry?.on) return;
  const span = telemetry.serverSpan(
    `${req.method} ${route}`,
    parentOf(undefined, req.headers),
    {
      'http.request.method': req.method,
      'http.route': route,
      'http.response.status_code': status,
      'mcp_beaver.refused_by': refusedBy(errorType),
      ...httpServerAttributes(req),
    },
    started,
  );
  span.fail(errorType);
  span.end();
}
