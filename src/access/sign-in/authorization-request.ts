/**
 * `/authorize`'s parameters checked in the order that keeps it from being an open redirect
 * (RFC 6749 section 4.1.2.1; spec-language.md, "Sign-in for MCP clients"): first the client and its exact redirect URI — a refusal of
 * either is a page, never a redirect — then everything else, refused by redirecting to
 * that now trusted URI with `error` and the client's `state`.
 */
import { isRegisteredRedirect } from './redirect-uri.js';
import type { SignInServices } from './sign-in-services.js';
import { resolveClient } from './client-registration.js';
import { refusal, type OAuthRefusal } from './oauth-answers.js';
import type { AuthorizationRequest, SignInClient } from './sign-in-types.js';

const MAX_STATE = 1024;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
const MAX_SCOPES = 64;
/** RFC 7636 section 4.2: base64url of a SHA-256 digest. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type AuthorizationCheck =
  /** The client or its redirect URI is not trusted: shown as a page. */
  | { readonly kind: 'page'; readonly refusal: OAuthRefusal }
  /** Refused at the client's checked redirect URI. */
  | {
      readonly kind: 'redirect';
      readonly redirectUri: string;
      readonly state?: string;
      readonly refusal: OAuthRefusal;
      readonly clientId: string;
    }
  | { readonly kind: 'ok'; readonly request: AuthorizationRequest; readonly client: SignInClient };

/** One query parameter's single value; a repeated one is refused (RFC 6749 section 3.1). */
function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const v = query[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : null;
}

/** Parses `scope`: space-separated tokens, or why not. */
export function parseScope(text: string | undefined): string[] | undefined {
  if (text === undefined || text.trim() === '') return [];
  const scopes = [...new Set(text.split(' ').filter(Boolean))];
  if (scopes.length > MAX_SCOPES || scopes.some((s) => !SCOPE_TOKEN.test(s))) return undefined;
  return scopes;
}

export async function checkAuthorization(
  services: SignInServices,
  query: Record<string, unknown>,
  resources: ReadonlySet<string>,
): Promise<AuthorizationCheck> {
  const clientId = single(query, 'client_id');
  if (clientId === null)
    return {
      kind: 'page',
      refusal: refusal('invalid_request', 'client_id is given more than once'),
    };
  const resolved = await resolveClient(services, clientId);
  if (!resolved.ok) return { kind: 'page', refusal: resolved.refusal };
  const client = resolved.client;
  const given = single(query, 'redirect_uri');
  if (given === null)
    return {
      kind: 'page',
      refusal: refusal('invalid_request', 'redirect_uri is given more than once'),
    };
  // Omitted only when the client has exactly one (RFC 6749 section 3.1.2.3).
  const redirectUri =
    given ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined)
    return {
      kind: 'page',
      refusal: refusal('invalid_request', 'redirect_uri is required: this client has several'),
    };
  if (!isRegisteredRedirect(client.redirectUris, redirectUri))
    return {
      kind: 'page',
      refusal: refusal(
        'invalid_request',
        "redirect_uri is not one of the client's registered redirect URIs (compared exactly; a loopback one's port aside)",
      ),
    };

  // From here on a refusal goes back to the client.
  const rawState = single(query, 'state');
  const state = typeof rawState === 'string' && rawState.length <= MAX_STATE ? rawState : undefined;
  const back = (error: OAuthRefusal['error'], description: string): AuthorizationCheck => ({
    kind: 'redirect',
    redirectUri,
    clientId: client.clientId,
    ...(state !== undefined && { state }),
    refusal: refusal(error, description),
  });
  if (rawState === null) return back('invalid_request', 'state is given more than once');
  if (typeof rawState === 'string' && rawState.length > MAX_STATE)
    return back('invalid_request', `state is longer than ${MAX_STATE} characters`);
  const responseType = single(query, 'response_type');
  if (responseType !== 'code')
    return back('unsupported_response_type', 'response_type must be code');
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (typeof challenge !== 'string')
    return back('invalid_request', 'code_challenge is required (PKCE with S256)');
  if (method !== 'S256')
    return back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!S256_CHALLENGE.test(challenge))
    return back('invalid_request', 'code_challenge is not a base64url SHA-256 digest');
  const resource = single(query, 'resource');
  if (typeof resource !== 'string')
    return back('invalid_target', "resource is required: the gateway's MCP URL or a toolset's");
  if (!resources.has(resource))
    return back(
      'invalid_target',
      "resource is not this gateway's MCP URL nor one of its toolsets'",
    );
  const scopeText = single(query, 'scope');
  const scopes = scopeText === null ? undefined : parseScope(scopeText);
  if (scopes === undefined) return back('invalid_scope', 'scope is not a list of scope tokens');
  return {
    kind: 'ok',
    client,
    request: {
      clientId: client.clientId,
      clientName: client.name,
      redirectUri,
      ...(state !== undefined && { state }),
      codeChallenge: challenge,
      resource,
      scopes,
    },
  };
}
