/**
 * The clients of the gateway as an authorization server (spec-language.md, "Sign-in for MCP
 * clients"): dynamic registration (RFC 7591)
 * kept nowhere — the `client_id` is the registration itself, sealed — and the resolution of
 * a `client_id` back into a client, whether sealed registration or metadata document URL.
 * Every client is public (`token_endpoint_auth_method: none`): PKCE, not a secret, binds
 * its code to it.
 */
import { redirectUriProblem } from './redirect-uri.js';
import { createHash } from 'node:crypto';
import type { SignInServices } from './sign-in-services.js';
import { refusal, type OAuthRefusal } from './oauth-answers.js';
import { SIGN_IN_TTL_MS, type SealedRegistration, type SignInClient } from './sign-in-types.js';

/** Bounds of a registration: the sealed `client_id` stays short enough for a URL. */
const MAX_REDIRECT_URIS = 5;
const MAX_REGISTERED_URI_LENGTH = 512;
const MAX_CLIENT_NAME = 100;

/** A display name without control characters, bounded. */
function cleanName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const clean = name
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, MAX_CLIENT_NAME);
  return clean === '' ? undefined : clean;
}

export type RegistrationResult =
  | { readonly ok: true; readonly answer: Record<string, unknown> }
  | { readonly ok: false; readonly refusal: OAuthRefusal };

/** `/register`: the client's metadata checked and sealed into its `client_id`. */
export function register(services: SignInServices, body: unknown): RegistrationResult {
  const fail = (error: 'invalid_redirect_uri' | 'invalid_client_metadata', d: string) => ({
    ok: false as const,
    refusal: refusal(error, d),
  });
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return fail('invalid_client_metadata', 'the registration must be a JSON object');
  const meta = body as Record<string, unknown>;
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    return fail('invalid_redirect_uri', 'redirect_uris is required: a non-empty array of URLs');
  if (uris.length > MAX_REDIRECT_URIS)
    return fail('invalid_redirect_uri', `redirect_uris holds more than ${MAX_REDIRECT_URIS} URLs`);
  for (const [i, uri] of uris.entries()) {
    // Tighter than a document's bound: the registration travels sealed inside the client
    // id, and that inside the provider round trip's state, which providers cap in length.
    const problem =
      typeof uri === 'string' && uri.length > MAX_REGISTERED_URI_LENGTH
        ? `must be at most ${MAX_REGISTERED_URI_LENGTH} characters`
        : redirectUriProblem(uri);
    if (problem) return fail('invalid_redirect_uri', `redirect_uris[${i}] ${problem}`);
  }
  const grants = meta.grant_types;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) ||
      grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
  )
    return fail(
      'invalid_client_metadata',
      'grant_types may hold only authorization_code and refresh_token',
    );
  const responses = meta.response_types;
  if (responses !== undefined && (!Array.isArray(responses) || responses.some((r) => r !== 'code')))
    return fail('invalid_client_metadata', 'response_types may hold only code');
  const name = cleanName(meta.client_name);
  const at = Date.now();
  const registration: SealedRegistration = {
    redirect_uris: uris as string[],
    ...(name !== undefined && { client_name: name }),
    at,
  };
  const clientId = services.sealer.seal(
    'client-registration',
    registration,
    SIGN_IN_TTL_MS.registration,
  );
  return {
    ok: true,
    answer: {
      client_id: clientId,
      client_id_issued_at: Math.floor(at / 1000),
      client_secret_expires_at: 0,
      redirect_uris: registration.redirect_uris,
      ...(name !== undefined && { client_name: name }),
      // A public client whatever it asked for: it has no secret, PKCE binds its codes.
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  };
}

/** A short stable digest of a client id: what the browser session lists as consented. */
export function clientDigest(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url').slice(0, 22);
}

/**
 * The client a `client_id` names: a sealed registration opened, or a metadata document URL
 * fetched (when the gateway has a fetcher), else `invalid_client`.
 */
export async function resolveClient(
  services: SignInServices,
  clientId: unknown,
): Promise<{ ok: true; client: SignInClient } | { ok: false; refusal: OAuthRefusal }> {
  if (typeof clientId !== 'string' || clientId === '')
    return { ok: false, refusal: refusal('invalid_request', 'client_id is required') };
  // A URL is a client ID metadata document's address (the fetcher refuses http unless a
  // test allowed it); anything else is a sealed registration.
  if (/^https?:\/\//i.test(clientId)) {
    const fetched = await services.clientMetadata.fetch(clientId);
    return fetched.ok
      ? { ok: true, client: fetched.client }
      : { ok: false, refusal: refusal('invalid_client', fetched.reason) };
  }
  const opened = services.sealer.open<SealedRegistration>('client-registration', clientId);
  if (!opened.ok)
    return {
      ok: false,
      refusal: refusal(
        'invalid_client',
        opened.reason === 'expired'
          ? 'client_id names a registration that has expired: register again'
          : 'client_id is not a client this gateway registered',
      ),
    };
  const reg = opened.value;
  return {
    ok: true,
    client: {
      clientId,
      kind: 'registered',
      name: reg.client_name ?? 'An unnamed client',
      redirectUris: reg.redirect_uris,
    },
  };
}
