/** What travels with a REST call into the engine: its trace, origin and cancellation. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Cancellation, type CallContext } from '../../engine/call-context.js';
import { validBaggage } from '../baggage.js';
import { continueTrace } from '../trace-context.js';
import { NO_SPAN, type Span } from '../../telemetry/span.js';

/**
 * The context of the call `req` makes: the W3C traceparent header (or, with telemetry on,
 * the call's span, a child of it), cancelled if the caller goes.
 */
export function callContextOf(
  req: FastifyRequest,
  reply: FastifyReply,
  approvalUrl?: (id: string) => string,
  span: Span = NO_SPAN,
): CallContext {
  const cancel = new Cancellation();
  // The response closing before it was written means the caller went away.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.cancel();
  });
  const trace = continueTrace(span.recording ? span.traceparent() : req.headers.traceparent);
  return {
    cancel,
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    // Passed on only when it is W3C baggage: a malformed one is dropped, not the call.
    baggage: validBaggage(req.headers.baggage),
    span,
    origin: { surface: 'rest', requestId: req.id },
    ...(approvalUrl && { approvalUrl }),
  };
}
