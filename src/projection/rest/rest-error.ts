/**
 * Catalogue errors as REST answers: `{"error":{"code","message","details"?}}` with the
 * catalogue status, and the REST projection's error handler.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { RefusedRequest } from '../../access/refused-request.js';
import {
  engineError,
  ERROR_CATALOGUE,
  statusOf,
  type CatalogueEntry,
  type EngineError,
} from '../../engine/error-catalogue.js';
import { clientWentAway } from '../client-went-away.js';

export interface RestErrorReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * `challenge` is the WWW-Authenticate value access control built for this answer; it is
 * sent when the code's catalogue row carries a challenge (401, and 403 for scopes).
 */
export function restError(e: EngineError, challenge?: string): RestErrorReply {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (e.retryAfter !== undefined) headers['retry-after'] = String(e.retryAfter);
  const entry: CatalogueEntry = ERROR_CATALOGUE[e.code];
  if (challenge !== undefined && entry.challenge !== undefined)
    headers['www-authenticate'] = challenge;
  // JSON.stringify leaves `details` out when it is undefined.
  const error = { code: e.code, message: e.message, details: e.details };
  return { status: statusOf(e.code), headers, body: JSON.stringify({ error }) };
}

/** `restError` sent on a fastify reply; `headers` adds what only the route knows (Allow). */
export function sendRestError(
  reply: FastifyReply,
  e: EngineError,
  challenge?: string,
  headers?: Record<string, string>,
): FastifyReply {
  const r = restError(e, challenge);
  return reply
    .code(r.status)
    .headers(headers ? { ...r.headers, ...headers } : r.headers)
    .send(r.body);
}

/**
 * The error handler of the REST projection, and the fallback of every route outside a
 * projection (the catalogue's shape is theirs too): a refusal at the edge, a framework
 * error (body limits, the parser's), or a bug, answered as the catalogue says, then told
 * to `answered` (the REST projection's span and duration point, refusal-telemetry.ts).
 */
export function restErrorHandler(
  bodyLimit: number,
  answered?: (req: FastifyRequest, reply: FastifyReply, errorType: string) => void,
): (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return function answerRestError(err, req, reply) {
    // The caller went away mid-upload: nobody is left to answer, and it is no fault of ours.
    if (clientWentAway(err, req)) return reply;
    const e = err instanceof RefusedRequest ? err.refusal : frameworkError(err, bodyLimit);
    if (e.code === 'INTERNAL') req.log.error({ err }, 'unhandled error');
    const sent = sendRestError(reply, e, err instanceof RefusedRequest ? err.challenge : undefined);
    answered?.(req, reply, e.code);
    return sent;
  };
}

function frameworkError(err: FastifyError, bodyLimit: number): EngineError {
  switch (err.code) {
    case 'INVALID_JSON':
      return engineError('INVALID_JSON', err.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return engineError('PAYLOAD_TOO_LARGE', `request body is over ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return engineError('UNSUPPORTED_MEDIA_TYPE', 'send the arguments as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return engineError('INVALID_JSON', 'request body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return engineError('INVALID_JSON', 'request body length does not match Content-Length');
    default:
      if (err.statusCode === 413)
        return engineError('PAYLOAD_TOO_LARGE', `request body is over ${bodyLimit} bytes`);
      if (err.statusCode === 415)
        return engineError('UNSUPPORTED_MEDIA_TYPE', 'send the arguments as application/json');
      return engineError('INTERNAL', 'internal error');
  }
}
