/**
 * The gateway as a client of the company's OpenID provider (spec-language.md, "Sign-in for
 * MCP clients"): discovery once at start, the
 * authorization URL of the code flow (PKCE S256 and a nonce), the code exchange with the
 * gateway's own confidential client, and the ID token checked against the provider's keys.
 *
 * The provider's tokens only sign the person in: nothing of them is kept, and none reaches
 * a client or a log. (Keeping them, sealed, for token exchange is a later issue's.)
 */
import { boundedText } from '../../outbound/bounded-text.js';
import { ASYMMETRIC_ALGORITHMS, CLOCK_SKEW_S } from '../oauth.js';
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { SignInDescriptor } from '../../compiler/descriptor.js';
import type { ProviderToken, SignedInPerson } from './sign-in-types.js';
import { expOf, providerTokenOf, refreshTokenOf } from './provider-answer.js';

/** A provider that does not answer in this long is down, for start-up and for a callback. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** Discovery documents and token answers are small; a larger answer is refused unread. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface ProviderEndpoints {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
}

export interface IdentityProvider {
  readonly endpoints: ProviderEndpoints;
  /** Where the browser goes to sign in; `state` is the sealed ProviderState. */
  authorizationUrl(p: {
    state: string;
    nonce: string;
    verifier: string;
    redirectUri: string;
  }): string;
  /** The code from `/callback` exchanged and its ID token checked; or why not (no secrets). */
  signIn(p: {
    code: string;
    verifier: string;
    nonce: string;
    redirectUri: string;
  }): Promise<{ ok: true; person: SignedInPerson } | { ok: false; reason: string }>;
  /**
   * A new provider token for `auth exchange` from the sign-in's refresh token (RFC 6749
   * section 6), and the refresh token to keep (the provider's rotated one, else the same);
   * `refused` when the provider answered that the grant is gone (the person signs in again).
   */
  renewProviderToken(
    refreshToken: string,
  ): Promise<
    | { ok: true; providerToken: ProviderToken; refreshToken: string }
    | { ok: false; refused: boolean; reason: string }
  >;
}

export type DiscoveryResult =
  | { readonly ok: true; readonly endpoints: ProviderEndpoints }
  | { readonly ok: false; readonly message: string };

/** PKCE S256 challenge of a verifier (RFC 7636 section 4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** 32 random bytes, base64url: verifiers, nonces, ids. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function httpsOrLoopback(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const u = new URL(url);
    if (u.protocol === 'https:') return true;
    return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The `iss` values an ID token of this provider may carry: its discovery document's
 * issuer; and for Google, which documents that its ID tokens say either
 * `https://accounts.google.com` or `accounts.google.com`, both.
 */
export function idTokenIssuers(issuer: string): string | string[] {
  return issuer === 'https://accounts.google.com' ? [issuer, 'accounts.google.com'] : issuer;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration`. Its `issuer` must be the configured one
 * (OpenID Connect Discovery section 4.3): a document naming another issuer is a mix-up,
 * and its endpoints are not trusted. The spec's issuer is read without a trailing slash,
 * and some providers (Auth0) spell theirs with one: that spelling is the same issuer, and
 * the document's own is what the ID tokens are checked against.
 */
export async function discoverProvider(issuer: string): Promise<DiscoveryResult> {
  const where = `${issuer}/.well-known/openid-configuration`;
  const failed = (why: string): DiscoveryResult => ({
    ok: false,
    message: `sign-in: the discovery document of issuer ${issuer} (${where}) ${why}`,
  });
  let res: Response;
  try {
    res = await fetch(where, {
      redirect: 'error',
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    return failed(`could not be fetched (unreachable): ${(err as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return failed(`answered HTTP ${res.status}, not 200`);
  }
  const text = await boundedText(res, MAX_ANSWER_BYTES);
  if (text === undefined) return failed(`is larger than ${MAX_ANSWER_BYTES} bytes`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error();
  } catch {
    return failed('is not a JSON object');
  }
  if (doc.issuer !== issuer && doc.issuer !== `${issuer}/`)
    return failed(
      `names issuer ${JSON.stringify(doc.issuer)}, not the configured ${JSON.stringify(issuer)} (a mix-up: its endpoints are not trusted)`,
    );
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const)
    if (!httpsOrLoopback(doc[field]))
      return failed(`has no ${field} that is an https URL (http only on localhost)`);
  return {
    ok: true,
    endpoints: {
      issuer: doc.issuer,
      authorizationEndpoint: doc.authorization_endpoint as string,
      tokenEndpoint: doc.token_endpoint as string,
      jwksUri: doc.jwks_uri as string,
    },
  };
}

/** The gateway scopes one ID token's claim gives: an array of strings or a space-separated string. */
function scopesFromClaim(payload: JWTPayload, claim: string | undefined): string[] {
  if (claim === undefined || !Object.hasOwn(payload, claim)) return [];
  const value = payload[claim];
  const all = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? value.split(/\s+/)
      : [];
  return [...new Set(all.filter((s) => s !== '' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))];
}

function displayNameOf(payload: JWTPayload): string | undefined {
  for (const claim of ['name', 'email', 'preferred_username'])
    if (typeof payload[claim] === 'string' && payload[claim] !== '')
      return (payload[claim] as string).slice(0, 200);
  return undefined;
}

export function createIdentityProvider(
  descriptor: SignInDescriptor,
  endpoints: ProviderEndpoints,
  client: { readonly id: string; readonly secret: string },
): IdentityProvider {
  const jwks = createRemoteJWKSet(new URL(endpoints.jwksUri), {
    timeoutDuration: PROVIDER_TIMEOUT_MS,
    cooldownDuration: 30_000,
    cacheMaxAge: 600_000,
  });
  // client_secret_basic: both halves form-encoded before joining (RFC 6749 section 2.3.1).
  const basic = `Basic ${Buffer.from(
    `${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`,
  ).toString('base64')}`;
  const scope = descriptor.scopes.join(' ');

  /**
   * One form POST to the provider's token endpoint as the gateway's client (a code's
   * exchange, a refresh): its JSON answer, or the provider's error code only (its
   * description may quote what we sent), or that it could not be reached.
   */
  async function postForm(
    form: Record<string, string>,
  ): Promise<
    | { kind: 'answer'; answer: Record<string, unknown> }
    | { kind: 'refused'; status: number; error: string | undefined }
    | { kind: 'unreachable' }
  > {
    let res: Response;
    try {
      res = await fetch(endpoints.tokenEndpoint, {
        method: 'POST',
        redirect: 'error',
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
        headers: {
          authorization: basic,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams(form).toString(),
      });
    } catch {
      return { kind: 'unreachable' };
    }
    const text = await boundedText(res, MAX_ANSWER_BYTES);
    let answer: Record<string, unknown> | undefined;
    try {
      answer = text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      answer = undefined;
    }
    if (res.status === 200 && answer && typeof answer === 'object')
      return { kind: 'answer', answer };
    const error =
      typeof answer?.error === 'string' && /^[\w.-]{1,64}$/.test(answer.error)
        ? answer.error
        : undefined;
    return { kind: 'refused', status: res.status, error };
  }

  return {
    endpoints,
    authorizationUrl({ state, nonce, verifier, redirectUri }) {
      const url = new URL(endpoints.authorizationEndpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', client.id);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', scope);
      url.searchParams.set('state', state);
      url.searchParams.set('nonce', nonce);
      url.searchParams.set('code_challenge', s256(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return url.href;
    },
    async signIn({ code, verifier, nonce, redirectUri }) {
      const posted = await postForm({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });
      if (posted.kind === 'unreachable') return { ok: false, reason: UNREACHABLE };
      if (posted.kind === 'refused') {
        const error = posted.error ? ` (${posted.error})` : '';
        return {
          ok: false,
          reason: `the provider refused the code exchange with HTTP ${posted.status}${error}`,
        };
      }
      const { answer } = posted;
      if (typeof answer.id_token !== 'string')
        return { ok: false, reason: 'the provider answered without an ID token' };
      try {
        const { payload } = await jwtVerify(answer.id_token, jwks, {
          issuer: idTokenIssuers(endpoints.issuer),
          audience: client.id,
          algorithms: [...ASYMMETRIC_ALGORITHMS],
          clockTolerance: CLOCK_SKEW_S,
          requiredClaims: ['exp', 'iat', 'sub'],
        });
        if (payload.nonce !== nonce)
          return { ok: false, reason: "the ID token's nonce is not the one this sign-in sent" };
        if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255)
          return { ok: false, reason: "the ID token's sub is not a usable subject" };
        // An ID token for several audiences must name us as its authorized party.
        if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== client.id)
          return { ok: false, reason: "the ID token's azp is not this gateway's client" };
        const displayName = displayNameOf(payload);
        const providerToken = providerTokenOf(answer, answer.id_token, payload.exp!);
        const providerRefresh = refreshTokenOf(answer);
        return {
          ok: true,
          person: {
            sub: payload.sub,
            scopes: scopesFromClaim(payload, descriptor.grantScopesFromClaim),
            ...(displayName !== undefined && { displayName }),
            ...(providerToken !== undefined && { providerToken }),
            ...(providerToken !== undefined &&
              providerRefresh !== undefined && { providerRefresh }),
          },
        };
      } catch (err) {
        const code = (err as { code?: string }).code ?? 'unknown';
        return { ok: false, reason: `the ID token does not verify (${code})` };
      }
    },
    async renewProviderToken(refreshToken) {
      const posted = await postForm({ grant_type: 'refresh_token', refresh_token: refreshToken });
      if (posted.kind === 'unreachable') return { ok: false, refused: false, reason: UNREACHABLE };
      if (posted.kind === 'refused')
        return {
          ok: false,
          // invalid_grant: revoked, expired or reused at the provider; nothing to retry.
          refused: posted.error === 'invalid_grant',
          reason: `the provider refused the refresh with HTTP ${posted.status}${posted.error ? ` (${posted.error})` : ''}`,
        };
      const { answer } = posted;
      // A refresh need not carry an ID token; without a Bearer access token there is
      // nothing newer to exchange.
      const idToken = typeof answer.id_token === 'string' ? answer.id_token : undefined;
      const providerToken = providerTokenOf(answer, idToken ?? '', idToken ? expOf(idToken) : 0);
      if (!providerToken || providerToken.token === '' || providerToken.expiresAt <= Date.now())
        return {
          ok: false,
          refused: false,
          reason: 'the provider answered the refresh without a token to exchange',
        };
      return { ok: true, providerToken, refreshToken: refreshTokenOf(answer) ?? refreshToken };
    },
  };
}

const UNREACHABLE = 'the provider token endpoint could not be reached';
