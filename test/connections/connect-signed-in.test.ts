/**
 * The connect page with `sign-in` (spec-language.md, "Sign-in for MCP clients"): the
 * browser session of the gateway's pages is who the browser is. A person signed in as
 * the link's caller goes straight to the provider (code flow, PKCE S256, sealed state);
 * a person signed in as anyone else is refused; a browser not signed in is sent to sign
 * in first and brought back to the link. Real parts: the OpenID provider of sign-in
 * (which is also the tracker's provider here), a JWKS issuer of access tokens, the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { startJwks, type JwksServer } from '../helpers/jwks.js';
import { BOB, CAROL, sessionCookie, TOKEN_KEY } from '../helpers/page-session.js';
import { okJson } from '../helpers/upstream.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

describe('the connect page of a gateway with sign-in', () => {
  let provider: TestOidcProvider;
  let jwks: JwksServer;
  let api: Upstream;
  let gw: TestGateway;
  let link: string;

  beforeAll(async () => {
    provider = await startOidcProvider({ redirectUris: [], people: [{ sub: 'bob' }] });
    jwks = await startJwks();
    api = await startUpstream(okJson);
    gw = await startGateway(
      `wrap "signed-in-connections" version="1"
access token-key-env="GATEWAY_TOKEN_KEY" {
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
    sign-in issuer="${provider.issuer}" client-id-env="IDP_CLIENT_ID" client-secret-env="IDP_CLIENT_SECRET" {
        scopes "openid"
    }
}
oauth-provider "tracker" {
    authorize-url "${provider.issuer}/auth"
    token-url "${provider.issuer}/token"
    client-id-env "IDP_CLIENT_ID"
    client-secret-env "IDP_CLIENT_SECRET"
    scopes "openid"
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
      {
        env: {
          GATEWAY_TOKEN_KEY: TOKEN_KEY,
          IDP_CLIENT_ID: provider.clientId,
          IDP_CLIENT_SECRET: provider.clientSecret,
        },
      },
    );
    // Bob calls with an access token of his (`sub:bob`, as the session names him).
    const token = await jwks.sign({ claims: { sub: BOB.sub } });
    const res = await postJson(
      `${gw.url}/api/read_whoami`,
      {},
      { authorization: `Bearer ${token}` },
    );
    expect(res.status, res.text).toBe(403);
    link = (res.json as { error: { details: { authorization: { url: string } } } }).error.details
      .authorization.url;
  });
  afterAll(async () => {
    await gw?.close();
    await api?.close();
    await jwks?.close();
    await provider?.close();
  });

  it('sends a browser signed in as the link’s caller to the provider with PKCE S256 and a state', async () => {
    const res = await fetch(link, {
      redirect: 'manual',
      headers: { cookie: await sessionCookie(BOB) },
    });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(`${provider.issuer}/auth`);
    expect(to.searchParams.get('response_type')).toBe('code');
    expect(to.searchParams.get('client_id')).toBe(provider.clientId);
    expect(to.searchParams.get('redirect_uri')).toBe(`${gw.url}/connect/tracker/callback`);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(to.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuses a browser signed in as anyone else, and sends it nowhere', async () => {
    const res = await fetch(link, {
      redirect: 'manual',
      headers: { cookie: await sessionCookie(CAROL) },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('made for another caller');
  });

  it('sends a browser not signed in to sign in first, and back to the link after', async () => {
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!, gw.url);
    expect(to.pathname).toBe('/signin');
    expect(to.searchParams.get('return')).toBe(new URL(link).pathname);
  });
});
