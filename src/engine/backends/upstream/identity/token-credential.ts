/**
 * A token obtained at run time as what a call sends: `Authorization: Bearer <token>`,
 * with the redactor that hides it in every spelling (redact.ts), built once per token and
 * kept with it, so that a call pays nothing for it but the scan of its own result.
 */
import { makeRedactor } from '../../../redact.js';
import type { TokenAnswer } from '../../../../outbound/token-request.js';
import type { Obtained } from './token-cache.js';

/** A token endpoint that says nothing of a lifetime: the token is used this long. */
export const DEFAULT_TOKEN_LIFETIME_S = 300;
/** A token is renewed this long before it expires, so no call carries one that expires on the way. */
export const EXPIRY_MARGIN_S = 30;

/**
 * Until when a token is used: its lifetime (or DEFAULT_TOKEN_LIFETIME_S), capped by
 * `notAfter` (epoch ms: the subject token's own expiry), less EXPIRY_MARGIN_S, or half of a
 * lifetime shorter than twice the margin (a 20 s token is used for 10 s, not never).
 */
export function usableUntil(
  now: number,
  expiresInS: number | undefined,
  notAfter?: number,
): number {
  let end = now + (expiresInS ?? DEFAULT_TOKEN_LIFETIME_S) * 1000;
  if (notAfter !== undefined && notAfter < end) end = notAfter;
  const life = end - now;
  return now + (life > 2 * EXPIRY_MARGIN_S * 1000 ? life - EXPIRY_MARGIN_S * 1000 : life / 2);
}

export function obtained(token: TokenAnswer, until: number): Obtained {
  const header = `Bearer ${token.accessToken}`;
  const credential = Object.freeze({
    headers: Object.freeze([Object.freeze(['authorization', header] as const)]),
    query: Object.freeze([]),
    redact: makeRedactor([token.accessToken], [header]),
  });
  return { outcome: Object.freeze({ ok: true as const, credential }), usableUntil: until };
}
