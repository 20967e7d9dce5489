/**
 * The server span of one REST call (docs/observability.md, "Spans"): `POST /api/{tool}`,
 * the route literally, the child of the request's `traceparent` header, ended with the
 * response's status. Only called with telemetry on. `gen_ai.tool.name` only for a tool
 * the spec has: the path's text is the caller's, and a made-up name never reaches a span.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway } from '../../engine/gateway.js';
import {
  REST_SPAN_NAME,
  httpServerAttributes,
  restServerAttributes,
} from '../../telemetry/conventions.js';
import type { Span } from '../../telemetry/span.js';
import type { Telemetry, TraceParent } from '../../telemetry/telemetry.js';

export async function traceRestCall(
  telemetry: Telemetry,
  req: FastifyRequest<{ Params: { tool: string } }>,
  reply: FastifyReply,
  gateway: Gateway,
  answer: (span: Span) => Promise<FastifyReply | undefined>,
): Promise<FastifyReply | undefined> {
  const { tool } = req.params;
  const span = telemetry.serverSpan(
    REST_SPAN_NAME,
    parentOf(req),
    restServerAttributes(gateway.view().operation(tool) ? tool : undefined),
  );
  // Beside the route's attributes, not merged into one object with them (issue 40).
  if (span.recording) span.setAttributes(httpServerAttributes(req));
  try {
    return await answer(span);
  } catch (err) {
    span.fail('INTERNAL');
    throw err;
  } finally {
    span.setAttribute('http.response.status_code', reply.statusCode);
    span.end();
  }
}

function parentOf(req: FastifyRequest): TraceParent {
  const { traceparent, tracestate } = req.headers;
  return {
    ...(typeof traceparent === 'string' && { traceparent }),
    ...(typeof tracestate === 'string' && { tracestate }),
  };
}
