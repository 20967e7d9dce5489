/**
 * What the gateway as an authorization server refuses (spec-language.md, "Sign-in for MCP
 * clients"), each with the RFC 6749 error and
 * never an open redirect: an unknown client or a redirect URI not registered (a page), PKCE
 * missing, plain or wrong, a missing or foreign resource, a code replayed, a callback in
 * another browser, a provider's own token presented at /mcp, a toolset's token at another
 * toolset, and a provider whose discovery names another issuer (start-up refused).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/oidc-provider.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import {
  approveInBrowser,
  CLIENT_REDIRECT,
  consentValue,
  signInRaw,
  signInSpec,
  startSignInGateway,
  startSignInWorld,
  tokenRequest,
  type SignInWorld,
} from '../helpers/sign-in-gateway.js';

let world: SignInWorld;
let gw: TestGateway;
let clientId: string;

beforeAll(async () => {
  world = await startSignInWorld();
  gw = await startSignInGateway(world);
  const res = await fetch(`${gw.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Refusals client', redirect_uris: [CLIENT_REDIRECT] }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});

afterAll(async () => {
  await gw?.close();
  await world?.close();
});

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

/** `/authorize` with the good parameters, `change`d; the answer unfollowed. */
async function authorize(change: Record<string, string | undefined> = {}) {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${gw.url}/mcp`,
    state: 'client-state',
    ...change,
  };
  const url = new URL(`${gw.url}/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

/** The error a redirect to the client carries. */
function errorAt(location: string | null): Record<string, string | null> {
  const u = new URL(location ?? 'http://missing.invalid/');
  return {
    at: `${u.origin}${u.pathname}`,
    error: u.searchParams.get('error'),
    state: u.searchParams.get('state'),
    iss: u.searchParams.get('iss'),
  };
}

function rpc(path: string, bearer: string) {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      authorization: `Bearer ${bearer}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

describe('the front channel', () => {
  it('shows a page, never a redirect, for a client it did not register', async () => {
    const res = await authorize({ client_id: 'made-up-client' });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('client_id is not a client this gateway registered');
  });

  it('shows a page, never a redirect, for a redirect URI the client did not register', async () => {
    const res = await authorize({ redirect_uri: 'https://attacker.example/steal' });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('redirect_uri is not one of');
    expect(res.body).not.toContain('attacker.example');
  });

  it('refuses a URL client_id on a loopback address as a page, without fetching it', async () => {
    const res = await authorize({ client_id: 'https://127.0.0.1:1/meta.json' });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.body).toContain('client_id names a private, loopback or reserved address');
  });

  it.each([
    [
      'PKCE missing',
      { code_challenge: undefined, code_challenge_method: undefined },
      'invalid_request',
    ],
    ['PKCE plain', { code_challenge: verifier, code_challenge_method: 'plain' }, 'invalid_request'],
    ['the resource missing', { resource: undefined }, 'invalid_target'],
    ['a foreign resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['a response type other than code', { response_type: 'token' }, 'unsupported_response_type'],
  ])(
    'redirects %s back to the client with the error and its state',
    async (_what, change, error) => {
      const res = await authorize(change);
      expect(res.status).toBe(302);
      expect(errorAt(res.location)).toEqual({
        at: CLIENT_REDIRECT,
        error,
        state: 'client-state',
        iss: gw.url,
      });
    },
  );

  it('names the client, its redirect host and the scopes on its consent page', async () => {
    const res = await authorize({ scope: 'tickets:read' });
    expect(res.status).toBe(200);
    expect(res.body).toContain('Refusals client');
    expect(res.body).toContain('127.0.0.1:1');
    expect(res.body).toContain('<code>tickets:read</code>');
  });

  it('sends the client access_denied when the person denies', async () => {
    const browser = new Browser();
    const page = await browser.go(
      `${gw.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CLIENT_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
        state: 'denied-state',
      })}`,
    );
    const back = await browser.go(`${gw.url}/authorize/consent`, {
      method: 'POST',
      form: { consent: consentValue(page.body), decision: 'deny' },
      stopAt: (u) => u.href.startsWith(CLIENT_REDIRECT),
    });
    expect(back.stopped).toBe(true);
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('state')).toBe('denied-state');
    expect(world.provider.seen.filter((p) => p === '/auth')).toHaveLength(0);
  });

  it('refuses a consent form posted from another browser (no round-trip cookie)', async () => {
    const page = await new Browser().go(
      `${gw.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CLIENT_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
      })}`,
    );
    const other = await new Browser().go(`${gw.url}/authorize/consent`, {
      method: 'POST',
      form: { consent: consentValue(page.body), decision: 'approve' },
    });
    expect(other.status).toBe(400);
    expect(other.body).toContain('consent is not a form this gateway showed this browser');
  });

  it('refuses a callback whose state was started in another browser (login CSRF)', async () => {
    const attacker = new Browser();
    const page = await attacker.go(
      `${gw.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CLIENT_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
      })}`,
    );
    // The attacker signs in at the provider and stops at the gateway's callback…
    world.provider.signInAs('bob');
    const atCallback = await attacker.go(`${gw.url}/authorize/consent`, {
      method: 'POST',
      form: { consent: consentValue(page.body), decision: 'approve' },
      stopAt: (u) => u.pathname === '/callback' && u.origin === gw.url,
    });
    expect(atCallback.stopped).toBe(true);
    // …and hands that URL to the victim's browser, which never started a sign-in.
    const victim = await new Browser().go(atCallback.url.href, {
      stopAt: (u) => u.href.startsWith(CLIENT_REDIRECT),
    });
    expect(victim.stopped).toBe(false);
    expect(victim.status).toBe(400);
    expect(victim.body).toContain('state belongs to a sign-in started in another browser');
  });
});

describe('the callback', () => {
  /** A browser sent to the provider after approving; the provider's URL (with our state). */
  async function atProvider(browser: Browser): Promise<URL> {
    const page = await browser.go(
      `${gw.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: CLIENT_REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
        state: 'callback-state',
      })}`,
    );
    const gone = await browser.go(`${gw.url}/authorize/consent`, {
      method: 'POST',
      form: { consent: consentValue(page.body), decision: 'approve' },
      stopAt: (u) => u.origin === world.provider.issuer && u.pathname === '/auth',
    });
    expect(gone.stopped).toBe(true);
    return gone.url;
  }

  it("relays the provider's error to the client as access_denied with the client's state", async () => {
    const browser = new Browser();
    const provider = await atProvider(browser);
    const back = await browser.go(
      `${gw.url}/callback?${new URLSearchParams({
        error: 'access_denied',
        error_description: 'the person said no marker-7f3a',
        state: provider.searchParams.get('state')!,
      })}`,
      { stopAt: (u) => u.href.startsWith(CLIENT_REDIRECT) },
    );
    expect(back.stopped).toBe(true);
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('state')).toBe('callback-state');
    expect(back.url.searchParams.get('code')).toBeNull();
    expect(back.url.href).not.toContain('marker-7f3a');
  });

  it('refuses an answer naming another issuer (RFC 9207 mix-up) with a page', async () => {
    const browser = new Browser();
    const provider = await atProvider(browser);
    const back = await browser.go(
      `${gw.url}/callback?${new URLSearchParams({
        code: 'a-code',
        iss: 'https://evil.example',
        state: provider.searchParams.get('state')!,
      })}`,
      { stopAt: (u) => u.href.startsWith(CLIENT_REDIRECT) },
    );
    expect(back.stopped).toBe(false);
    expect(back.status).toBe(400);
    expect(back.body).toContain('iss is not the identity provider this sign-in went to');
  });

  it('sends the provider a PKCE S256 challenge, a nonce and the gateway callback', async () => {
    const provider = await atProvider(new Browser());
    expect(provider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(provider.searchParams.get('redirect_uri')).toBe(`${gw.url}/callback`);
    expect(provider.searchParams.get('client_id')).toBe(world.provider.clientId);
    expect(provider.searchParams.get('scope')).toBe('openid profile email');
  });
});

describe('the token endpoint', () => {
  it('refuses a wrong PKCE verifier, then the right one still works once', async () => {
    const { clientId: id, code, verifier: right } = await signInRaw(gw, world.provider);
    const exchange = (v: string) =>
      tokenRequest(gw.url, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: CLIENT_REDIRECT,
        client_id: id,
        code_verifier: v,
      });
    const wrong = await exchange(randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({
      error: 'invalid_grant',
      error_description: "code_verifier does not match the code's code_challenge",
    });
    const ok = await exchange(right);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const replay = await exchange(right);
    expect(replay.json.error).toBe('invalid_grant');
  });

  it('refuses a code presented by a client it was not issued to', async () => {
    const { code, verifier: v } = await signInRaw(gw, world.provider);
    const other = await tokenRequest(gw.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      code_verifier: v,
    });
    expect(other.json).toEqual({
      error: 'invalid_grant',
      error_description: 'code was issued to another client_id',
    });
  });

  it('refuses a refresh asking for more scope than was granted, and allows a narrower one', async () => {
    const { tokens, clientId: id } = await signInRaw(gw, world.provider, {
      as: 'bob',
      exchangeAt: gw.url,
    });
    expect(tokens!.scope).toBe('tickets:read');
    const wider = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens!.refresh_token,
      client_id: id,
      scope: 'tickets:read billing:read',
    });
    expect(wider.json.error).toBe('invalid_scope');
    const narrower = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens!.refresh_token,
      client_id: id,
      scope: 'tickets:read',
    });
    expect(narrower.status).toBe(200);
    expect(narrower.json.scope).toBe('tickets:read');
  });

  it('refuses a token request that is not a form', async () => {
    for (const [type, body] of [
      ['application/json', JSON.stringify({ grant_type: 'refresh_token', client_id: clientId })],
      ['text/plain', 'grant_type=refresh_token'],
    ] as const) {
      const res = await fetch(`${gw.url}/token`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
  });

  it('answers an unknown grant type with unsupported_grant_type', async () => {
    const res = await tokenRequest(gw.url, { grant_type: 'password', client_id: clientId });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('unsupported_grant_type');
  });
});

describe('the tokens at /mcp', () => {
  it('refuses the provider’s own tokens presented directly', async () => {
    // The provider's tokens, obtained with the gateway's own client at the provider.
    const browser = new Browser();
    world.provider.signInAs('alice');
    const start = new URL(`${world.provider.issuer}/auth`);
    const pv = randomBytes(32).toString('base64url');
    start.search = new URLSearchParams({
      response_type: 'code',
      client_id: world.provider.clientId,
      redirect_uri: `${gw.url}/callback`,
      scope: 'openid',
      nonce: 'n',
      code_challenge: createHash('sha256').update(pv).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const back = await browser.go(start.href, { stopAt: (u) => u.pathname === '/callback' });
    const res = await fetch(`${world.provider.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${world.provider.clientId}:${world.provider.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.url.searchParams.get('code')!,
        redirect_uri: `${gw.url}/callback`,
        code_verifier: pv,
      }).toString(),
    });
    const provided = (await res.json()) as { id_token: string; access_token: string };
    expect(provided.id_token.split('.')).toHaveLength(3);
    for (const token of [provided.id_token, provided.access_token]) {
      const answer = await rpc('/mcp', token);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(answer.headers.get('www-authenticate')).toContain(
        `resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
  });

  it('accepts a token for toolset triage there and refuses it at billing and at /mcp', async () => {
    const { tokens } = await signInRaw(gw, world.provider, {
      resource: `${gw.url}/mcp/triage`,
      exchangeAt: gw.url,
    });
    expect((await rpc('/mcp/triage', tokens!.access_token)).status).toBe(200);
    const billing = await rpc('/mcp/billing', tokens!.access_token);
    expect(billing.status).toBe(401);
    expect(billing.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await rpc('/mcp', tokens!.access_token)).status).toBe(401);
  });

  it('names the gateway first among the authorization servers of its resource metadata', async () => {
    const res = await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp/triage`);
    expect(
      ((await res.json()) as { authorization_servers: string[] }).authorization_servers,
    ).toEqual([gw.url]);
    const meta = (await (
      await fetch(`${gw.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: gw.url,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    const jwks = (await (await fetch(`${gw.url}/.well-known/jwks.json`)).json()) as {
      keys: { kty: string; crv: string; d?: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwks.keys[0]!.d).toBeUndefined();
  });
});

describe('start-up', () => {
  let fake: Server;
  let fakeIssuer: string;

  beforeAll(async () => {
    // A discovery document naming another issuer than the one it is served for.
    fake = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          issuer: 'https://login.other.example',
          authorization_endpoint: 'https://login.other.example/auth',
          token_endpoint: 'https://login.other.example/token',
          jwks_uri: 'https://login.other.example/jwks',
        }),
      );
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    fakeIssuer = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => fake?.close(() => r()));
  });

  it('is refused when the discovery document names another issuer (mix-up)', async () => {
    await expect(
      startGateway(signInSpec(world.upstream.url, fakeIssuer), { env: world.env }),
    ).rejects.toThrow(/names issuer "https:\/\/login\.other\.example", not the configured/);
  });

  it('is refused, naming the variable, when the token key is missing', async () => {
    const { GATEWAY_TOKEN_KEY: _dropped, ...env } = world.env;
    await expect(
      startGateway(signInSpec(world.upstream.url, world.provider.issuer), { env }),
    ).rejects.toThrow(/GATEWAY_TOKEN_KEY/);
  });

  it('is refused when the provider cannot be reached', async () => {
    await expect(
      startGateway(signInSpec(world.upstream.url, 'http://127.0.0.1:1'), { env: world.env }),
    ).rejects.toThrow(/could not be fetched \(unreachable\)/);
  });
});

it('keeps approved clients per person: the consent page is skipped the second time', async () => {
  const browser = new Browser();
  const url = (state: string) =>
    `${gw.url}/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CLIENT_REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${gw.url}/mcp`,
      state,
    })}`;
  await approveInBrowser(browser, world.provider, url('first'));
  const second = await browser.go(url('second'), {
    stopAt: (u) => u.href.startsWith(CLIENT_REDIRECT),
  });
  expect(second.stopped).toBe(true);
  expect(second.url.searchParams.get('state')).toBe('second');
  expect(second.url.searchParams.get('code')).toEqual(expect.any(String));
});
