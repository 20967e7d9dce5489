/** Catalogue errors as REST answers: `{"error":{"code","message","details"?}}` with the catalogue status. */
import type { FastifyReply } from 'fastify';
import {
  ERROR_CATALOGUE,
  statusOf,
  type CatalogueEntry,
  type EngineError,
} from '../../engine/error-catalogue.js';

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
