/**
 * OAuth 2 resource server (protocol.md, "Authorization"): JWT bearer tokens verified
 * against the issuer's JWKS (fetched and cached by jose, refetched on an unknown
 * `kid` at most once per cooldown), with pinned asymmetric algorithms (no `none`,
 * no HS* that a public key could forge), the issuer, this server as audience
 * (RFC 8707), and `exp`/`nbf`/`iat` with a small clock skew: a token issued in the
 * future is refused (jose checks `iat` only against a maximum age, which we do not set),
 * and so is a token without a `sub`: every caller has an identity of its own.
 * On a toolset URL the audience may also be that URL: the configured audience (the URL
 * of `/mcp`) with `/<toolset>` appended, never anything taken from the request's Host.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Caller, SubjectToken } from '../engine/caller.js';

/** What a token of another issuer may be signed with: asymmetric only (never `none`, never HS*). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
export const CLOCK_SKEW_S = 30;

export interface OAuthConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: string;
}

export type TokenCheck =
  { readonly ok: true; readonly caller: Caller } | { readonly ok: false; readonly reason: string };

export interface OAuthVerifier {
  /** `toolset`: the toolset the request is addressed to, whose URL is an audience too. */
  verify(token: string, toolset?: string): Promise<TokenCheck>;
}

export function createOAuthVerifier(cfg: OAuthConfig): OAuthVerifier {
  // An unreachable JWKS must not stall calls: a short fetch timeout, and a cooldown
  // so a flood of unknown `kid`s causes at most one refetch per 30 s.
  const jwks = createRemoteJWKSet(new URL(cfg.jwksUri), {
    timeoutDuration: 2_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 600_000,
  });
  const toolsetBase = `${cfg.audience.replace(/\/+$/, '')}/`;
  return {
    async verify(token, toolset) {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: cfg.issuer,
          // jose accepts a token whose aud names any one of these.
          audience: toolset === undefined ? cfg.audience : [cfg.audience, toolsetBase + toolset],
          algorithms: [...ASYMMETRIC_ALGORITHMS],
          clockTolerance: CLOCK_SKEW_S,
          requiredClaims: ['exp'],
        });
        // jose has checked that iat, when present, is a number.
        if (payload.iat !== undefined && payload.iat > Date.now() / 1000 + CLOCK_SKEW_S)
          return { ok: false, reason: "the token's iat claim is in the future" };
        // The subject is the caller's identity: approvals, own-call checks and rate limits
        // hang on it. Tokens without one would all be the same caller, so none is let in.
        if (typeof payload.sub !== 'string' || payload.sub === '')
          return {
            ok: false,
            reason: "the token's sub claim is missing or not a non-empty string",
          };
        return { ok: true, caller: callerOf(payload, payload.sub, token) };
      } catch (err) {
        return { ok: false, reason: reasonOf(err) };
      }
    },
  };
}

function callerOf(payload: JWTPayload, sub: string, token: string): Caller {
  const scopes = new Set<string>();
  const scope = payload.scope;
  if (typeof scope === 'string') for (const s of scope.split(/\s+/)) if (s) scopes.add(s);
  const scp = payload.scp;
  if (Array.isArray(scp)) for (const s of scp) if (typeof s === 'string') scopes.add(s);
  if (typeof scp === 'string') for (const s of scp.split(/\s+/)) if (s) scopes.add(s);
  // RFC 9068 names the client `client_id`; OIDC-style issuers put it in `azp`.
  const client =
    typeof payload.azp === 'string' && payload.azp !== ''
      ? payload.azp
      : typeof payload.client_id === 'string' && payload.client_id !== ''
        ? payload.client_id
        : undefined;
  // The verified bearer is what `auth exchange` exchanges for this caller; a function, so
  // that no copy of the caller carries it.
  const subject: SubjectToken = Object.freeze({
    token,
    type: 'urn:ietf:params:oauth:token-type:access_token',
  });
  return Object.freeze({
    id: `sub:${sub}`,
    scopes,
    claims: Object.freeze({ ...payload }),
    ...(client !== undefined && { client }),
    subjectToken: () => subject,
  });
}

function reasonOf(err: unknown): string {
  const code = (err as { code?: string }).code ?? '';
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `the token's ${(err as { claim?: string }).claim ?? 'claims'} claim is not valid for this server`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the token signature does not verify';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'the token algorithm is not allowed';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no key of the issuer matches the token';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JOSE_GENERIC':
      return 'the issuer keys could not be fetched';
    default:
      // jose reports every problem of the token itself with a code; an error without one
      // comes from fetching the JWKS (connection refused, DNS), not from the token.
      return code.startsWith('ERR_J')
        ? 'the token is not a valid JWT for this server'
        : 'the issuer keys could not be fetched';
  }
}
