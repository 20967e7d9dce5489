/** What travels with a REST call into the engine: its trace, origin and cancellation. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Cancellation, type CallContext } from '../../engine/call-context.js';
import { continueTrace } from '../trace-context.js';

/** The context of the call `req` makes: the W3C traceparent header, cancelled if the caller goes. */
export function callContextOf(
  req: FastifyRequest,
  reply: FastifyReply,
  approvalUrl?: (id: string) => string,
): CallContext {
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
    ...(approvalUrl && { approvalUrl }),
  };
}
