/** The request scope of a REST call into the engine: its caller, trace, origin and cancellation. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnsweringScope } from '../../engine/call-context.js';
import { Cancellation } from '../../outbound/cancellation.js';
import type { Caller } from '../../engine/caller.js';
import { approvalPageUrl } from '../approval-url.js';
import { connectPageUrl } from '../../connections/connect-path.js';
import { validBaggage } from '../baggage.js';
import { traceOf } from '../trace-context.js';
import { CANNOT_BE_ASKED } from '../unaskable.js';
import { NO_SPAN, type Span } from '../../telemetry/span.js';

/**
 * The scope of the call `req` makes: the W3C traceparent header (or, with telemetry on,
 * the call's span, a child of it), cancelled if the caller goes. REST asks its caller's
 * user nothing; an approval is named by its page on the gateway at `baseUrl`.
 */
export function requestScopeOf(
  req: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  baseUrl: string,
  span: Span = NO_SPAN,
  /** The spec connects accounts (`auth user`): the scope names the connect pages too. */
  connects = false,
): AnsweringScope {
  const cancel = new Cancellation();
  // The response closing before it was written means the caller went away. `on`, not
  // `once`: a response closes once, and `once` wrapped the listener in a bound function
  // and removed it again on every call.
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) cancel.cancel();
  });
  const trace = traceOf(span, req.headers.traceparent);
  return {
    caller,
    cancel,
    traceparent: trace.traceparent,
    traceId: trace.traceId,
    // Passed on only when it is W3C baggage: a malformed one is dropped, not the call.
    baggage: validBaggage(req.headers.baggage),
    span,
    origin: { surface: 'rest', requestId: req.id },
    approvalUrl: (id) => approvalPageUrl(baseUrl, id),
    // Made only for a spec that has connect pages: no closure per call otherwise.
    connectUrl: connects
      ? (provider: string, id: string) => connectPageUrl(baseUrl, provider, id)
      : undefined,
    unaskable: CANNOT_BE_ASKED,
  };
}
