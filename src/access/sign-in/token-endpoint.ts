/**
 * `/token` (RFC 6749 sections 4.1.3 and 6; spec-language.md, "Sign-in for MCP clients"): a sealed code or refresh token opened, checked
 * against what the client sends, spent once by its `jti` in the single-use store (shared
 * through Redis by every replica), then a new access token and a new refresh token. Refresh
 * tokens rotate: the one presented is spent, so a stolen one replayed after its owner used it
 * is refused (and the other way round).
 */
import type { SignInServices } from './sign-in-services.js';
import { issueAccessToken } from './access-tokens.js';
import { randomToken, s256 } from './identity-provider.js';
import { resolveClient } from './client-registration.js';
import { parseScope } from './authorization-request.js';
import { refusal, type OAuthRefusal } from './oauth-answers.js';
import { SIGN_IN_TTL_MS, type SealedCode, type SealedRefresh } from './sign-in-types.js';
import {
  openProviderRefresh,
  providerTokenEndsBefore,
  sealProviderRefresh,
  sealProviderToken,
} from './provider-token.js';

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export type TokenResult =
  | {
      readonly ok: true;
      readonly answer: Record<string, unknown>;
      readonly sub: string;
      readonly clientId: string;
    }
  | {
      readonly ok: false;
      readonly refusal: OAuthRefusal;
      readonly sub?: string;
      readonly clientId?: string;
    };

type Form = Record<string, string | string[]>;

function one(form: Form, name: string): string | undefined | null {
  const v = form[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : null;
}

/** Spends `jti` once; false when already spent; a store that cannot answer says so. */
/**
 * Spends a code's or refresh token's `jti`: undefined the first time, else why not — used
 * already, or a store that does not answer (refused rather than risk a second spend).
 */
async function spendOnce(
  services: SignInServices,
  jti: string,
  expiresAt: number,
  what: 'code' | 'refresh_token',
): Promise<OAuthRefusal | undefined> {
  try {
    if (await services.spent.markSpent(jti, expiresAt)) return undefined;
    return refusal('invalid_grant', `${what} was used already`);
  } catch {
    return refusal(
      'temporarily_unavailable',
      'the single-use store does not answer: retry shortly',
    );
  }
}

async function tokensFor(
  services: SignInServices,
  base: string,
  grant: {
    clientId: string;
    resource: string;
    sub: string;
    scopes: readonly string[];
    pt?: string;
    prt?: string;
  },
  accessScopes: readonly string[],
  /**
   * When the refresh token stops opening (epoch ms): 30 days after the sign-in however often
   * it rotates; undefined for the first, sealed for the whole 30 days.
   */
  refreshUntil: number | undefined,
): Promise<Record<string, unknown>> {
  const access = await issueAccessToken(services.keys, {
    issuer: base,
    audience: grant.resource,
    sub: grant.sub,
    scopes: accessScopes,
    clientId: grant.clientId,
    ...(grant.pt !== undefined && { providerToken: grant.pt }),
  });
  const refresh: SealedRefresh = {
    jti: randomToken(),
    clientId: grant.clientId,
    resource: grant.resource,
    scopes: grant.scopes,
    sub: grant.sub,
    ...(grant.pt !== undefined && { pt: grant.pt }),
    ...(grant.prt !== undefined && { prt: grant.prt }),
  };
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    refresh_token:
      refreshUntil === undefined
        ? services.sealer.seal('refresh-token', refresh, SIGN_IN_TTL_MS.refreshToken)
        : services.sealer.sealUntil('refresh-token', refresh, refreshUntil),
    scope: accessScopes.join(' '),
  };
}

export async function answerToken(
  services: SignInServices,
  base: string,
  form: Form,
): Promise<TokenResult> {
  const fail = (
    error: OAuthRefusal['error'],
    description: string,
    who: { sub?: string; clientId?: string } = {},
  ): TokenResult => ({ ok: false, refusal: refusal(error, description), ...who });
  for (const [name, value] of Object.entries(form))
    if (Array.isArray(value)) return fail('invalid_request', `${name} is given more than once`);
  const grantType = one(form, 'grant_type');
  const clientId = one(form, 'client_id');
  if (grantType === undefined) return fail('invalid_request', 'grant_type is required');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
    return fail('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  // Public clients name themselves in the body (RFC 6749 section 3.2.1).
  if (typeof clientId !== 'string' || clientId === '')
    return fail('invalid_request', 'client_id is required');
  const resource = one(form, 'resource');

  if (grantType === 'authorization_code') {
    const opened = services.sealer.open<SealedCode>('authorization-code', one(form, 'code'));
    if (!opened.ok)
      return fail(
        'invalid_grant',
        opened.reason === 'expired' ? 'code has expired' : 'code is not a code this gateway issued',
      );
    const code = opened.value;
    const who = { sub: code.sub, clientId: code.clientId };
    if (code.clientId !== clientId)
      return fail('invalid_grant', 'code was issued to another client_id', who);
    if (one(form, 'redirect_uri') !== code.redirectUri)
      return fail('invalid_grant', 'redirect_uri is not the one the code was asked with', who);
    const verifier = one(form, 'code_verifier');
    if (typeof verifier !== 'string' || !VERIFIER.test(verifier))
      return fail(
        'invalid_grant',
        'code_verifier is required: 43 to 128 unreserved characters',
        who,
      );
    if (s256(verifier) !== code.codeChallenge)
      return fail('invalid_grant', "code_verifier does not match the code's code_challenge", who);
    if (resource !== undefined && resource !== code.resource)
      return fail('invalid_target', 'resource is not the one the code was asked for', who);
    // The client must still be one: an expired registration gets no tokens.
    const client = await resolveClient(services, clientId);
    if (!client.ok) return { ok: false, refusal: client.refusal, ...who };
    const spent = await spendOnce(services, code.jti, opened.expiresAt, 'code');
    if (spent) return { ok: false, refusal: spent, ...who };
    return {
      ok: true,
      ...who,
      answer: await tokensFor(services, base, code, code.scopes, undefined),
    };
  }

  const opened = services.sealer.open<SealedRefresh>('refresh-token', one(form, 'refresh_token'));
  if (!opened.ok)
    return fail(
      'invalid_grant',
      opened.reason === 'expired'
        ? 'refresh_token has expired: sign in again'
        : 'refresh_token is not one this gateway issued',
    );
  const grant = opened.value;
  const who = { sub: grant.sub, clientId: grant.clientId };
  if (grant.clientId !== clientId)
    return fail('invalid_grant', 'refresh_token was issued to another client_id', who);
  if (resource !== undefined && resource !== grant.resource)
    return fail('invalid_target', 'resource is not the one the refresh_token was issued for', who);
  const scopeText = one(form, 'scope');
  const asked = scopeText === null ? undefined : parseScope(scopeText);
  if (asked === undefined) return fail('invalid_scope', 'scope is not a list of scope tokens', who);
  const held = new Set(grant.scopes);
  if (asked.some((s) => !held.has(s)))
    return fail('invalid_scope', 'scope asks for more than the refresh_token was granted', who);
  const spent = await spendOnce(services, grant.jti, opened.expiresAt, 'refresh_token');
  if (spent) return { ok: false, refusal: spent, ...who };
  const carried = await carriedProviderTokens(services, grant, opened.expiresAt);
  if (!carried.ok) return fail('invalid_grant', `${carried.reason}: sign in again`, who);
  // A narrower access token; the new refresh token keeps the grant (RFC 6749 section 6).
  return {
    ok: true,
    ...who,
    // Rotation never extends the grant: the person signs in at the provider again (and
    // their roles are read again) at least every 30 days.
    answer: await tokensFor(
      services,
      base,
      { ...grant, ...carried.tokens },
      asked.length > 0 ? asked : grant.scopes,
      opened.expiresAt,
    ),
  };
}

/**
 * The provider tokens a refresh carries on (`auth exchange` exchanges `pt` for the person):
 * the same while the provider token outlives the access token about to be issued; else
 * renewed at the provider with the sign-in's refresh token. A provider that refuses the
 * grant (revoked, expired, reused) ends the sign-in; one that cannot be reached or answers
 * oddly leaves the old ones in place, so the person stays signed in and the next refresh
 * tries again (an exchange meanwhile is refused by the provider, as before).
 */
async function carriedProviderTokens(
  services: SignInServices,
  grant: SealedRefresh,
  refreshEnds: number,
): Promise<{ ok: true; tokens: { pt?: string; prt?: string } } | { ok: false; reason: string }> {
  const kept = {
    ...(grant.pt !== undefined && { pt: grant.pt }),
    ...(grant.prt !== undefined && { prt: grant.prt }),
  };
  if (grant.prt === undefined) return { ok: true, tokens: kept };
  const accessEnds = Date.now() + SIGN_IN_TTL_MS.accessToken;
  if (grant.pt !== undefined && !providerTokenEndsBefore(services.sealer, grant.pt, accessEnds))
    return { ok: true, tokens: kept };
  const refreshToken = openProviderRefresh(services.sealer, grant.prt);
  if (refreshToken === undefined) return { ok: true, tokens: kept };
  const renewed = await services.provider.renewProviderToken(refreshToken);
  if (!renewed.ok) return renewed.refused ? renewed : { ok: true, tokens: kept };
  return {
    ok: true,
    tokens: {
      pt: sealProviderToken(services.sealer, renewed.providerToken),
      prt: sealProviderRefresh(services.sealer, renewed.refreshToken, refreshEnds),
    },
  };
}
