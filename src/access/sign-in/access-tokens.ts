/**
 * The gateway's own access tokens (spec-language.md, "Sign-in for MCP clients"): JWTs signed EdDSA with the key derived from
 * `token-key-env`, so every replica given the same key issues and accepts the same tokens.
 * `iss` the gateway's base URL, `aud` the resource the client named (`/mcp` or a toolset's
 * URL), `sub` the provider's subject, `scope` what was granted; one hour.
 *
 * Accepted like `oauth` tokens (oauth.ts): on a toolset URL, the toolset's URL or `/mcp`'s
 * as audience; anywhere else only `/mcp`'s.
 */
import { SignJWT, jwtVerify, decodeProtectedHeader } from 'jose';
import type { Caller } from '../../engine/caller.js';
import type { TokenKeys } from './token-key.js';
import type { Sealer } from './sealed.js';
import { providerTokenOpener } from './provider-token.js';
import { randomToken } from './identity-provider.js';
import { SIGN_IN_TTL_MS } from './sign-in-types.js';

const CLOCK_SKEW_S = 30;

export interface IssuedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
}

export async function issueAccessToken(
  keys: TokenKeys,
  claims: {
    issuer: string;
    audience: string;
    sub: string;
    scopes: readonly string[];
    clientId: string;
    /** The provider token from the sign-in, sealed (provider-token.ts): claim `pt`. */
    providerToken?: string;
  },
): Promise<IssuedAccessToken> {
  const expiresIn = Math.floor(SIGN_IN_TTL_MS.accessToken / 1000);
  const token = await new SignJWT({
    scope: claims.scopes.join(' '),
    client_id: claims.clientId,
    ...(claims.providerToken !== undefined && { pt: claims.providerToken }),
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.kid, typ: 'at+jwt' })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .setJti(randomToken())
    .sign(keys.signing);
  return { token, expiresIn };
}

/** True when the token's header names the gateway's own key: it is checked here, not by `oauth`. */
export function isOwnToken(keys: TokenKeys, token: string): boolean {
  try {
    return decodeProtectedHeader(token).kid === keys.kid;
  } catch {
    return false;
  }
}

export type OwnTokenCheck =
  { readonly ok: true; readonly caller: Caller } | { readonly ok: false; readonly reason: string };

/**
 * A gateway token checked for this request: signature (EdDSA only), `iss` = the base URL the
 * request reached, `aud` = `mcpUrl` or, on a toolset URL, that toolset's URL.
 */
export async function verifyOwnToken(
  keys: TokenKeys,
  token: string,
  expected: { issuer: string; mcpUrl: string; toolset?: string },
  /** Opens the provider token the access token carries, for `auth exchange`. */
  sealer?: Sealer,
): Promise<OwnTokenCheck> {
  const audience =
    expected.toolset === undefined
      ? expected.mcpUrl
      : [expected.mcpUrl, `${expected.mcpUrl}/${expected.toolset}`];
  try {
    const { payload } = await jwtVerify(token, keys.verifying, {
      issuer: expected.issuer,
      audience,
      algorithms: ['EdDSA'],
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp', 'sub'],
    });
    if (typeof payload.sub !== 'string' || payload.sub === '')
      return { ok: false, reason: "the token's sub claim is missing" };
    const scopes = new Set(
      typeof payload.scope === 'string' ? payload.scope.split(/\s+/).filter(Boolean) : [],
    );
    return {
      ok: true,
      caller: Object.freeze({
        id: `sub:${payload.sub}`,
        scopes,
        // The sealed provider token is the gateway's, not a claim a spec reads.
        claims: Object.freeze({ ...payload, pt: undefined }),
        ...(typeof payload.client_id === 'string' &&
          payload.client_id !== '' && { client: payload.client_id }),
        ...(sealer !== undefined &&
          typeof payload.pt === 'string' && {
            subjectToken: providerTokenOpener(sealer, payload.pt),
          }),
      }),
    };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'ERR_JWT_EXPIRED') return { ok: false, reason: 'the token has expired' };
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
      return {
        ok: false,
        reason: `the token's ${(err as { claim?: string }).claim ?? 'claims'} claim is not valid for this server`,
      };
    return { ok: false, reason: 'the token does not verify' };
  }
}
