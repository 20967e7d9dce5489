/**
 * The parts of a connected-account test (issue 43, `auth user`), all real and on
 * 127.0.0.1: an OpenID provider (oidc-provider) whose code flow connects accounts and
 * which issues rotating refresh tokens; in front of its token endpoint a relay the test
 * can tell to refuse refreshes (`invalid_grant`, as a provider does once the person
 * revoked the gateway's access); and the tracker API, which checks every bearer it gets
 * at the provider's userinfo endpoint and answers whose account it is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, startOidcProvider, type TestOidcProvider } from './oidc-provider.js';
import { startUpstream, type Upstream } from './upstream.js';

export const ALICE_KEY = 'alice-agent-key-6f1c2a90';
export const BOB_KEY = 'bob-agent-key-0d93be47';
/** A caller who never connects an account. */
export const CAROL_KEY = 'carol-agent-key-5b27d1e3';
export const TOKEN_KEY = '7e'.repeat(32);

export interface ConnectionsWorld {
  readonly provider: TestOidcProvider;
  /** The tracker API: what it received, and whose account each call was. */
  readonly api: Upstream;
  /** Where the spec's token-url points: the provider's token endpoint, through the relay. */
  readonly tokenUrl: string;
  /** Refresh requests the relay saw. */
  readonly refreshes: () => number;
  /** Revocation requests (RFC 7009) the relay answered at its `/revoke`: their forms and Authorization. */
  readonly revocations: { form: URLSearchParams; authorization: string }[];
  /** From now on the relay answers every refresh `invalid_grant` (true), or passes it on. */
  refuseRefreshes(on: boolean): void;
  /** Seconds the next access tokens live. */
  setAccessTokenTtl(seconds: number): void;
  /** From now on the relay drops `refresh_token` from the provider's answers (true), or keeps it. */
  withholdRefreshTokens(on: boolean): void;
  /** The tracker API answers its next `n` requests 401, whatever token they carry. */
  refuseApiNext(n: number): void;
  readonly env: Record<string, string>;
  /** `provider` lines go inside `oauth-provider "tracker"` (e.g. its `issuer`). */
  spec(extraLimits?: string, provider?: string): string;
  close(): Promise<void>;
}

export async function startConnectionsWorld(): Promise<ConnectionsWorld> {
  let ttl = 3600;
  const provider = await startOidcProvider({
    redirectUris: [],
    people: [{ sub: 'alice-at-tracker' }, { sub: 'bob-at-tracker' }],
    refreshTokens: true,
    accessTokenTtl: () => ttl,
  });
  let refuse = false;
  let withhold = false;
  let apiRefusals = 0;
  let refreshes = 0;
  const revocations: { form: URLSearchParams; authorization: string }[] = [];
  const relay: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (req.url === '/revoke') {
          revocations.push({
            form: new URLSearchParams(body),
            authorization: req.headers.authorization ?? '',
          });
          res.writeHead(200).end();
          return;
        }
        const refresh = new URLSearchParams(body).get('grant_type') === 'refresh_token';
        if (refresh) refreshes++;
        if (refresh && refuse) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end('{"error":"invalid_grant","error_description":"grant revoked"}');
          return;
        }
        const answer = await fetch(`${provider.issuer}/token`, {
          method: 'POST',
          headers: {
            authorization: req.headers.authorization ?? '',
            'content-type': req.headers['content-type'] ?? '',
          },
          body,
        });
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        const text = await answer.text();
        if (!withhold || answer.status !== 200) return void res.end(text);
        const { refresh_token: _dropped, ...rest } = JSON.parse(text) as Record<string, unknown>;
        res.end(JSON.stringify(rest));
      })();
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const tokenUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/token`;
  const api = await startUpstream(async (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (apiRefusals > 0) {
      apiRefusals--;
      res.statusCode = 401;
      res.end(JSON.stringify({ error: 'this token is no longer accepted' }));
      return;
    }
    const who = await fetch(`${provider.issuer}/me`, {
      headers: { authorization: String(req.headers.authorization ?? '') },
    });
    if (who.status !== 200) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: 'the provider does not know this token' }));
      return;
    }
    const claims = (await who.json()) as { sub: string };
    res.end(JSON.stringify({ account: claims.sub }));
  });
  return {
    provider,
    api,
    tokenUrl,
    refreshes: () => refreshes,
    revocations,
    refuseRefreshes(on) {
      refuse = on;
    },
    setAccessTokenTtl(seconds) {
      ttl = seconds;
    },
    withholdRefreshTokens(on) {
      withhold = on;
    },
    refuseApiNext(n) {
      apiRefusals = n;
    },
    env: {
      ALICE_KEY,
      BOB_KEY,
      CAROL_KEY,
      TOKEN_KEY,
      TRACKER_CLIENT_ID: provider.clientId,
      TRACKER_CLIENT_SECRET: provider.clientSecret,
    },
    spec: (extraLimits = '', providerLines = '') => `wrap "connections" version="1"
access token-key-env="TOKEN_KEY" {
    api-key env="ALICE_KEY"
    api-key env="BOB_KEY"
    api-key env="CAROL_KEY"
}
${extraLimits}
oauth-provider "tracker" {
    authorize-url "${provider.issuer}/auth"
    token-url "${tokenUrl}"
    client-id-env "TRACKER_CLIENT_ID"
    client-secret-env "TRACKER_CLIENT_SECRET"
    scopes "openid"
    revoke-url "${tokenUrl.replace(/\/token$/, '/revoke')}"
    ${providerLines}
}
upstream "tracker" base-url="${api.url}/api" {
    auth user provider="tracker"
}
can read whoami {
    describe "Whose tracker account the gateway calls as."
    upstream "tracker"
    path "/me"
}
`,
    async close() {
      await api.close();
      await new Promise<void>((resolve) => {
        relay.closeAllConnections();
        relay.close(() => resolve());
      });
      await provider.close();
    },
  };
}

/**
 * Opens `url` (a connect link) in a fresh browser, shows `key` on the page's form, and
 * signs in at the provider as `person`. Stops at the gateway's callback when `stopAtCallback`.
 */
export async function connectInBrowser(
  world: ConnectionsWorld,
  url: string,
  key: string,
  person: string,
  stopAtCallback = false,
): Promise<{ url: URL; status: number; body: string; stopped: boolean; browser: Browser }> {
  const browser = new Browser();
  const page = await browser.go(url);
  if (page.status !== 200 || !page.body.includes('<form'))
    throw new Error(`the connect page answered ${page.status}: ${page.body.slice(0, 300)}`);
  world.provider.signInAs(person);
  const done = await browser.go(url, {
    method: 'POST',
    form: { key },
    ...(stopAtCallback && {
      stopAt: (u: URL) =>
        u.pathname.endsWith('/callback') && u.port !== new URL(world.provider.issuer).port,
    }),
  });
  return { ...done, browser };
}
