/**
 * The sign-in suites' world (issue 42): a real OpenID provider (oidc-provider.ts), the
 * toolsets spec behind `access token-key-env { sign-in … }` in a real gateway, and an MCP
 * client's side of the code flow — an `OAuthClientProvider` of SDK v1 that keeps what the
 * SDK hands it, and `approveInBrowser`, which plays the person: the consent page, Approve,
 * the provider, the callback, stopping at the client's loopback redirect URI.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ClientMetadataFetcherOptions } from '../../src/access/sign-in/client-metadata-document.js';
import { startGateway, type TestGateway } from './gateway.js';
import {
  Browser,
  startOidcProvider,
  type OidcProviderOptions,
  type Person,
  type TestOidcProvider,
} from './oidc-provider.js';
import { toolsetsSpec } from './toolsets-spec.js';
import { okJson, startUpstream, type Upstream } from './upstream.js';

export const PEOPLE: readonly Person[] = [
  { sub: 'alice', name: 'Alice Archer', roles: ['tickets:read', 'billing:read'] },
  { sub: 'bob', email: 'bob@example.com', roles: ['tickets:read'] },
];

/** The redirect URI of the test's MCP client: loopback, never listened on (the test stops there). */
export const CLIENT_REDIRECT = 'http://127.0.0.1:1/oauth/callback';

export interface SignInWorld {
  readonly provider: TestOidcProvider;
  readonly upstream: Upstream;
  readonly env: Record<string, string>;
  readonly spec: string;
  close(): Promise<void>;
}

/** The spec text of a sign-in gateway; `limits` goes in as given (redis-env). */
export function signInSpec(upstream: string, issuer: string, limits = ''): string {
  return toolsetsSpec({
    upstream,
    access: `sign-in issuer="${issuer}" client-id-env="IDP_CLIENT_ID" client-secret-env="IDP_CLIENT_SECRET" {
        scopes "openid" "profile" "email"
        grant-scopes from-claim="roles"
    }`,
  }).replace('access {', `${limits}\naccess token-key-env="GATEWAY_TOKEN_KEY" {`);
}

/** A provider and an upstream; gateways are started by the test (`startSignInGateway`). */
export async function startSignInWorld(
  opts: {
    tokenKey?: string;
    people?: readonly Person[];
    /** More of the provider: the APIs and service clients of upstream credentials. */
    provider?: Pick<
      OidcProviderOptions,
      'apis' | 'serviceClients' | 'refreshTokens' | 'accessTokenTtl'
    >;
  } = {},
): Promise<SignInWorld> {
  const provider = await startOidcProvider({
    redirectUris: [],
    people: opts.people ?? PEOPLE,
    ...opts.provider,
  });
  const upstream = await startUpstream(okJson);
  const env = {
    GATEWAY_TOKEN_KEY: opts.tokenKey ?? randomBytes(32).toString('hex'),
    IDP_CLIENT_ID: provider.clientId,
    IDP_CLIENT_SECRET: provider.clientSecret,
  };
  return {
    provider,
    upstream,
    env,
    spec: signInSpec(upstream.url, provider.issuer),
    close: async () => {
      await provider.close();
      await upstream.close();
    },
  };
}

/** A gateway of `world`, its callback allowed at the provider. */
export async function startSignInGateway(
  world: SignInWorld,
  opts: {
    spec?: string;
    env?: Record<string, string>;
    publicUrl?: string;
    clientMetadataFetch?: ClientMetadataFetcherOptions;
  } = {},
): Promise<TestGateway> {
  const gw = await startGateway(opts.spec ?? world.spec, {
    env: { ...world.env, ...opts.env },
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
    ...(opts.clientMetadataFetch && { clientMetadataFetch: opts.clientMetadataFetch }),
  });
  await world.provider.allowRedirect(`${gw.url}/callback`);
  return gw;
}

/** SDK v1's client side, kept in memory as a desktop client keeps it on disk. */
export class MemoryClientProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** The authorization URL the SDK asked to open. */
  authorizationUrl: URL | undefined;
  readonly sentState = randomBytes(16).toString('base64url');

  /** With a URL: the client introduces itself by a client ID metadata document there. */
  constructor(
    private readonly name = 'SDK v1 test client',
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return CLIENT_REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return this.sentState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** The hidden `consent` value of a consent page. */
export function consentValue(html: string): string {
  const m = /name="consent" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no consent form on the page: ${html.slice(0, 500)}`);
  return m[1]!;
}

/**
 * Plays the person: opens `authorizationUrl`, approves on the consent page (unless the
 * browser skipped it), signs in at the provider as `as`, and stops at the client's
 * redirect URI; that URL, with its `code`, `state` and `iss`.
 */
export async function approveInBrowser(
  browser: Browser,
  provider: TestOidcProvider,
  authorizationUrl: string,
  as = 'alice',
  redirectUri = CLIENT_REDIRECT,
): Promise<URL> {
  provider.signInAs(as);
  const stopAt = (u: URL): boolean => u.href.startsWith(redirectUri);
  const first = await browser.go(authorizationUrl, { stopAt });
  if (first.stopped) return first.url;
  if (first.status !== 200)
    throw new Error(`the consent page answered ${first.status}: ${first.body}`);
  const consentUrl = new URL('/authorize/consent', first.url).href;
  const done = await browser.go(consentUrl, {
    method: 'POST',
    form: { consent: consentValue(first.body), decision: 'approve' },
    stopAt,
  });
  if (!done.stopped)
    throw new Error(
      `the flow ended at ${done.url.href} (${done.status}): ${done.body.replace(/[\s\S]*<body>/, '').slice(0, 1500)}`,
    );
  return done.url;
}

/** An MCP client's whole code flow, as raw requests: registered, approved, exchanged. */
export async function signInRaw(
  gw: { url: string },
  provider: TestOidcProvider,
  opts: { resource?: string; as?: string; scope?: string; exchangeAt?: string } = {},
): Promise<{
  clientId: string;
  code: string;
  verifier: string;
  tokens?: { access_token: string; refresh_token: string; scope: string };
}> {
  const registered = await fetch(`${gw.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'raw test client', redirect_uris: [CLIENT_REDIRECT] }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${gw.url}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: opts.resource ?? `${gw.url}/mcp`,
    state: 'raw-state',
    ...(opts.scope !== undefined && { scope: opts.scope }),
  }).toString();
  const back = await approveInBrowser(new Browser(), provider, url.href, opts.as ?? 'alice');
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code at the redirect URI: ${back.href}`);
  if (opts.exchangeAt === undefined) return { clientId, code, verifier };
  const res = await tokenRequest(opts.exchangeAt, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: CLIENT_REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
  if (res.status !== 200)
    throw new Error(`token request answered ${res.status}: ${JSON.stringify(res.json)}`);
  return { clientId, code, verifier, tokens: res.json as never };
}

/** One form POST to `<base>/token`. */
export async function tokenRequest(
  base: string,
  form: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: res.status,
    headers: res.headers,
    json: (await res.json()) as Record<string, unknown>,
  };
}
