/** What travels with a REST call into the engine: its trace, origin and cancellation. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Cancellation, type CallContext } from '../../engine/call-context.js';
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
  const { baggage } = req.headers;
  return {
    cancel,
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    baggage: typeof baggage === 'string' ? baggage : undefined,
    span,
    origin: { surface: 'rest', requestId: req.id },
    ...(approvalUrl && { approvalUrl }),
  };
}
