/**
 * The server span of one REST call (docs/observability.md, "Spans"): `POST /api/{tool}`,
 * the route literally, the child of the request's `traceparent` header, ended with the
 * response's status. Only called with telemetry on.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { REST_SPAN_NAME, restServerAttributes } from '../../telemetry/conventions.js';
import type { Span } from '../../telemetry/span.js';
import type { Telemetry, TraceParent } from '../../telemetry/telemetry.js';

export async function traceRestCall(
  telemetry: Telemetry,
  req: FastifyRequest<{ Params: { tool: string } }>,
  reply: FastifyReply,
  answer: (span: Span) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const span = telemetry.serverSpan(
    REST_SPAN_NAME,
    parentOf(req),
    restServerAttributes(req.params.tool),
  );
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
