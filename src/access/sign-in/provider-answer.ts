/**
 * What the gateway keeps from an identity provider's token answer, at sign-in and at a
 * refresh: the token `auth exchange` exchanges for the person (with its expiry) and the
 * refresh token that renews it, each only when it is usable and short enough to seal into
 * the gateway's own tokens.
 */
import { decodeJwt } from 'jose';
import type { ProviderToken } from './sign-in-types.js';

/** The provider's refresh token, when it gave a usable one. */
export function refreshTokenOf(answer: Record<string, unknown>): string | undefined {
  const r = answer.refresh_token;
  return typeof r === 'string' &&
    r !== '' &&
    r.length <= MAX_PROVIDER_TOKEN_CHARS &&
    /^[\x21-\x7e]+$/.test(r)
    ? r
    : undefined;
}

/** An ID token's `exp` (seconds), unverified: it only bounds how long it is kept for an exchange. */
export function expOf(idToken: string): number {
  try {
    const exp = decodeJwt(idToken).exp;
    return typeof exp === 'number' ? exp : 0;
  } catch {
    return 0;
  }
}

/** Longer provider tokens are not kept: sealed into the gateway's tokens they would bloat every request. */
const MAX_PROVIDER_TOKEN_CHARS = 4096;

/**
 * The token `auth exchange` exchanges for this person later: the provider's access token
 * when it answered a Bearer one (what a provider's token exchange expects first), else the
 * ID token just verified; with its expiry (`expires_in`, else the ID token's `exp`).
 */
export function providerTokenOf(
  answer: Record<string, unknown>,
  idToken: string,
  idTokenExp: number,
): ProviderToken | undefined {
  const access = answer.access_token;
  const expiresIn = answer.expires_in;
  if (
    typeof access === 'string' &&
    access !== '' &&
    access.length <= MAX_PROVIDER_TOKEN_CHARS &&
    /^[\x21-\x7e]+$/.test(access) &&
    typeof answer.token_type === 'string' &&
    /^bearer$/i.test(answer.token_type)
  ) {
    const said = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
    // No lifetime said: an hour, what providers commonly issue; the exchange is refused
    // by the provider anyway once it has expired.
    const lifeS = typeof said === 'number' && Number.isFinite(said) && said > 0 ? said : 3600;
    return {
      token: access,
      type: 'urn:ietf:params:oauth:token-type:access_token',
      expiresAt: Date.now() + lifeS * 1000,
    };
  }
  if (idToken.length > MAX_PROVIDER_TOKEN_CHARS) return undefined;
  return {
    token: idToken,
    type: 'urn:ietf:params:oauth:token-type:id_token',
    expiresAt: idTokenExp * 1000,
  };
}
