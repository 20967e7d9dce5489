/** Catalogue errors as REST answers: `{"error":{"code","message","details"?}}` with the catalogue status. */
import { statusOf, type EngineError } from '../../engine/error-catalogue.js';

export interface RestErrorReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function restError(e: EngineError): RestErrorReply {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (e.retryAfter !== undefined) headers['retry-after'] = String(e.retryAfter);
  // JSON.stringify leaves `details` out when it is undefined.
  const error = { code: e.code, message: e.message, details: e.details };
  return { status: statusOf(e.code), headers, body: JSON.stringify({ error }) };
}
