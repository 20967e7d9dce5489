/**
 * What the pieces of the gateway as an authorization server hand each other
 * (spec-language.md, "Sign-in for MCP clients"): the sealed values (sealed.ts) the
 * front channel (authorize, consent, the provider round trip, the callback) and the
 * back channel (token, refresh, registration) agree on, and the routes they answer at.
 *
 * The sequence: a client reads `/.well-known/oauth-protected-resource` (RFC 9728, naming
 * the gateway), then `/.well-known/oauth-authorization-server` (RFC 8414); registers at
 * `/register` or presents a client ID metadata document URL as `client_id`; sends the
 * browser to `/authorize` → the gateway's consent page, naming the client → the provider
 * (OIDC code flow, PKCE and nonce) → `/callback` → a sealed single-use code back at the
 * client's redirect URI → `/token`.
 */
import type { SubjectToken } from '../../engine/caller.js';

export const SIGN_IN_PATHS = Object.freeze({
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  jwks: '/.well-known/jwks.json',
  register: '/register',
  authorize: '/authorize',
  /** POST from the consent page: the person's yes or no. */
  consent: '/authorize/consent',
  callback: '/callback',
  token: '/token',
  /** Browser sign-in for the gateway's own pages: `GET /signin?return=/approvals`. */
  pageSignIn: '/signin',
  pageSignOut: '/signout',
});

/** How long each sealed value opens. */
export const SIGN_IN_TTL_MS = Object.freeze({
  /** The provider round trip, and the consent page's form. */
  providerState: 10 * 60_000,
  authorizationCode: 60_000,
  accessToken: 60 * 60_000,
  refreshToken: 30 * 24 * 60 * 60_000,
  browserSession: 8 * 60 * 60_000,
  /** A dynamic registration: the client registers again after it. */
  registration: 365 * 24 * 60 * 60_000,
});

/** A client as `/authorize` and `/token` know it, whichever way it introduced itself. */
export interface SignInClient {
  /** The `client_id` as the client sends it: a metadata document URL, or a sealed registration. */
  readonly clientId: string;
  readonly kind: 'metadata-document' | 'registered';
  /** What the consent page names; never trusted for anything else. */
  readonly name: string;
  /** Exact redirect URIs; `/authorize` accepts only one of these, compared as strings. */
  readonly redirectUris: readonly string[];
}

/** The sealed body of a dynamic registration (`client_id` = `Sealer.seal('client-registration', …)`). */
export interface SealedRegistration {
  readonly redirect_uris: readonly string[];
  readonly client_name?: string;
  /** Registered at, epoch ms: shown on the consent page as how old the registration is. */
  readonly at: number;
}

/** The client's authorization request, once `/authorize` has checked it. */
export interface AuthorizationRequest {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  /** The client's own `state`, handed back untouched (absent when it sent none). */
  readonly state?: string;
  /** PKCE S256 challenge. */
  readonly codeChallenge: string;
  /** The gateway's or a toolset's MCP URL: the tokens' audience. */
  readonly resource: string;
  /** Scopes asked for; empty = every scope the person holds. */
  readonly scopes: readonly string[];
}

/** Sealed as `provider-state`: the `state` of the provider round trip (10 minutes). */
export interface ProviderState {
  /** Why the browser went to the provider. */
  readonly purpose: 'authorize' | 'page';
  /** `authorize`: the request the code will answer. */
  readonly request?: AuthorizationRequest;
  /** `page`: the gateway path to return to after the page sign-in (same origin only). */
  readonly returnTo?: string;
  /** OIDC nonce, checked in the ID token. */
  readonly nonce: string;
  /** PKCE verifier of the gateway's own request to the provider. */
  readonly providerVerifier: string;
  /** Binds the round trip to the browser that started it (a cookie of the same value). */
  readonly browserBinding: string;
}

/** The person the provider signed in, from the checked ID token. */
export interface SignedInPerson {
  /** The provider's `sub`. */
  readonly sub: string;
  /** The gateway scopes `grant-scopes from-claim` gives this person (empty without it). */
  readonly scopes: readonly string[];
  /** For the pages and audit lines only (`name`, else `email`, else `preferred_username`). */
  readonly displayName?: string;
  /**
   * The provider's token from this sign-in, which `auth exchange` exchanges for the person
   * (its access token when it answered one, else the ID token), until `expiresAt` (epoch ms).
   */
  readonly providerToken?: ProviderToken;
  /**
   * The provider's refresh token from this sign-in, when it gave one: a refresh of the
   * gateway's token renews `providerToken` with it once that has expired.
   */
  readonly providerRefresh?: string;
}

export interface ProviderToken {
  readonly token: string;
  readonly type: SubjectToken['type'];
  readonly expiresAt: number;
}

/**
 * The provider token as the gateway's own tokens carry it: sealed as `provider-tokens`
 * (AES-GCM under the token key, until the provider token's own expiry), so that the MCP
 * client holding the gateway's token cannot read it and any replica can open it.
 */
export type SealedProviderToken = string;

/** Sealed as `authorization-code` (60 s, single use by `jti`). */
export interface SealedCode {
  readonly jti: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  /** Granted: the asked scopes the person holds (all the person holds when none asked). */
  readonly scopes: readonly string[];
  readonly sub: string;
  readonly pt?: SealedProviderToken;
  /** The provider's refresh token, sealed as `provider-refresh`; never in an access token. */
  readonly prt?: string;
}

/** Sealed as `refresh-token`: rotating and single use by `jti`. */
export interface SealedRefresh {
  readonly jti: string;
  readonly clientId: string;
  readonly resource: string;
  readonly scopes: readonly string[];
  readonly sub: string;
  /**
   * Kept as sealed at sign-in: a refresh carries it on, and once it has expired renews it
   * at the provider with `prt` when the sign-in gave one.
   */
  readonly pt?: SealedProviderToken;
  readonly prt?: string;
}

/** Sealed as `browser-session`: the cookie of the gateway's own pages. */
export interface SealedBrowserSession {
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly displayName?: string;
  /** Clients this person consented to in this browser: the consent page is not shown again. */
  readonly consented: readonly string[];
}

/** The cookie names; `__Host-` behind https (Secure, Path=/, no Domain). */
export const BROWSER_SESSION_COOKIE = 'mcp_beaver_session';
export const ROUND_TRIP_COOKIE = 'mcp_beaver_signin';

/**
 * Fetches and checks a client ID metadata document (an https `client_id` URL): bounded in
 * size, time and redirects, its `client_id` equal to the URL, its `redirect_uris` kept,
 * cached per its caching headers. Refusals are RFC 6749 `invalid_client` with a reason that
 * never echoes the document.
 */
export interface ClientMetadataFetcher {
  fetch(
    clientId: string,
  ): Promise<
    | { readonly ok: true; readonly client: SignInClient }
    | { readonly ok: false; readonly reason: string }
  >;
}
