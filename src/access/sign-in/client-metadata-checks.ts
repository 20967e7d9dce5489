/**
 * What a fetched client ID metadata document must say before `/authorize` trusts it
 * (security.md, "Client ID metadata documents"): its own URL as `client_id`, the exact
 * redirect URIs the code may go to, no shared secret, and a name fit for the consent page.
 * Refusal reasons name the field and the rule, never the document's values: the document
 * is the client's text, and the reasons reach logs and error pages.
 */
import { redirectUriProblem } from './redirect-uri.js';
import type { SignInClient } from './sign-in-types.js';

export const MAX_REDIRECT_URIS = 20;
/** The consent page shows the name in a line of its own; longer names are cut. */
export const MAX_CLIENT_NAME_LENGTH = 80;

export type ClientMetadataCheck =
  | { readonly ok: true; readonly client: SignInClient }
  | { readonly ok: false; readonly reason: string };

/**
 * The name the consent page shows: control and invisible formatting characters (bidi
 * overrides among them, which can make a name read as another) removed, whitespace runs
 * made one space, at most `MAX_CLIENT_NAME_LENGTH` characters. Undefined when nothing is left.
 */
export function displayName(value: string): string | undefined {
  const cleaned = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return undefined;
  const chars = [...cleaned];
  return chars.length <= MAX_CLIENT_NAME_LENGTH
    ? cleaned
    : `${chars.slice(0, MAX_CLIENT_NAME_LENGTH - 1).join('')}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the parsed document fetched from `clientId` (the URL exactly as the client sent it). */
export function checkClientMetadata(doc: unknown, clientId: string): ClientMetadataCheck {
  const refuse = (reason: string): ClientMetadataCheck => ({ ok: false, reason });
  if (!isObject(doc)) return refuse('the client metadata document must be a JSON object');
  // The draft compares by simple string comparison: the document vouches for this URL only.
  if (doc.client_id !== clientId)
    return refuse('client_id in the client metadata document differs from its URL');
  if ('client_secret' in doc || 'client_secret_expires_at' in doc)
    return refuse('the client metadata document must not contain client_secret');
  const method = doc.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    if (method === 'private_key_jwt')
      return refuse('token_endpoint_auth_method private_key_jwt is not supported, only none');
    return refuse('token_endpoint_auth_method must be none');
  }
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    return refuse('redirect_uris must be a non-empty array');
  if (uris.length > MAX_REDIRECT_URIS)
    return refuse(`redirect_uris must hold at most ${MAX_REDIRECT_URIS} URIs`);
  for (const [i, uri] of uris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) return refuse(`redirect_uris[${i}] ${problem}`);
  }
  let name: string | undefined;
  if (doc.client_name !== undefined) {
    if (typeof doc.client_name !== 'string') return refuse('client_name must be a string');
    name = displayName(doc.client_name);
  }
  return {
    ok: true,
    client: {
      clientId,
      kind: 'metadata-document',
      name: name ?? new URL(clientId).host,
      redirectUris: Object.freeze([...(uris as string[])]),
    },
  };
}
