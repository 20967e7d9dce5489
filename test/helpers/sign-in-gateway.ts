/**
 * The sign-in suites' world (issue 42): a real OpenID provider (oidc-provider.ts), the
 * toolsets spec behind `access token-key-env { sign-in … }` in a real gateway, and an MCP
 * client's side of the code flow — an `OAuthClientProvider` of SDK v1 that keeps what the
 * SDK hands it, and `approveInBrowser`, which plays the person: the consent page, Approve,
 * the provider, the callback, stopping at the client's loopback redirect URI.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { startGateway, type TestGateway } from './gateway.js';
import { Browser, startOidcProvider, type Person, type TestOidcProvider } from './oidc-provider.js';
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
  opts: { tokenKey?: string; people?: readonly Person[] } = {},
): Promise<SignInWorld> {
  const provider = await startOidcProvider({ redirectUris: [], people: opts.people ?? PEOPLE });
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
  opts: { spec?: string; env?: Record<string, string> } = {},
): Promise<TestGateway> {
  const gw = await startGateway(opts.spec ?? world.spec, { env: { ...world.env, ...opts.env } });
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

  constructor(private readonly name = 'SDK v1 test client') {}

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
