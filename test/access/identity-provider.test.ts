/**
 * The gateway's checks of what the identity provider answers (src/access/sign-in/
 * identity-provider.ts; spec-language.md, "Sign-in for MCP clients"): discovery must name
 * the configured issuer and give https endpoints, and an ID token counts only with the
 * provider's signature, its issuer, the gateway's client as audience and the nonce of this
 * sign-in — the forgeries and substitutions an attacker would try are refused. A stand-in
 * provider on 127.0.0.1 answers the token request with the ID token each test signs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JWTPayload } from 'jose';
import {
  createIdentityProvider,
  discoverProvider,
  idTokenIssuers,
} from '../../src/access/sign-in/identity-provider.js';
import { startJwks, unsignedToken, type JwksServer } from '../helpers/jwks.js';

let jwks: JwksServer;
let server: Server;
let issuer: string;
/** What the stand-in's discovery document and token endpoint answer next. */
let discovery: Record<string, unknown> | string = {};
let idToken = '';
let lastTokenRequest: { authorization?: string; body: string } | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration')
        return res.end(typeof discovery === 'string' ? discovery : JSON.stringify(discovery));
      if (req.url === '/token') {
        lastTokenRequest = {
          ...(req.headers.authorization !== undefined && {
            authorization: req.headers.authorization,
          }),
          body,
        };
        return res.end(JSON.stringify({ access_token: 'provider-at', id_token: idToken }));
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  jwks = await startJwks({ issuer });
});

afterAll(async () => {
  await jwks?.close();
  await new Promise<void>((r) => server?.close(() => r()));
});

const goodDiscovery = () => ({
  issuer,
  authorization_endpoint: `${issuer}/auth`,
  token_endpoint: `${issuer}/token`,
  jwks_uri: jwks.url,
});

async function providerFor(claim = 'roles') {
  discovery = goodDiscovery();
  const found = await discoverProvider(issuer);
  if (!found.ok) throw new Error(found.message);
  return createIdentityProvider(
    {
      issuer,
      clientIdEnv: 'X',
      clientSecretEnv: 'Y',
      scopes: ['openid'],
      grantScopesFromClaim: claim,
    },
    found.endpoints,
    { id: 'gateway-client', secret: 'provider secret/with:odd chars' },
  );
}

async function signInWith(claims: JWTPayload, unsigned = false) {
  const provider = await providerFor();
  const all = { iss: issuer, aud: 'gateway-client', sub: 'carol', nonce: 'n-1', ...claims };
  idToken = unsigned ? unsignedToken(all) : await jwks.sign({ claims: all });
  return provider.signIn({
    code: 'c',
    verifier: 'v',
    nonce: 'n-1',
    redirectUri: 'http://gw/callback',
  });
}

describe('discovery', () => {
  it('refuses a document that names another issuer', async () => {
    discovery = { ...goodDiscovery(), issuer: 'https://elsewhere.example' };
    const found = await discoverProvider(issuer);
    expect(found.ok).toBe(false);
    expect(!found.ok && found.message).toContain('names issuer "https://elsewhere.example"');
  });

  it('takes the issuer spelled with a trailing slash as the same issuer, and checks ID tokens against that spelling', async () => {
    discovery = { ...goodDiscovery(), issuer: `${issuer}/` };
    const found = await discoverProvider(issuer);
    expect(found.ok && found.endpoints.issuer).toBe(`${issuer}/`);
  });

  it('refuses a document that is not JSON', async () => {
    discovery = '<html>login</html>';
    const found = await discoverProvider(issuer);
    expect(!found.ok && found.message).toContain('is not a JSON object');
  });

  it('refuses a document whose token endpoint is plain http on another host', async () => {
    discovery = { ...goodDiscovery(), token_endpoint: 'http://idp.example/token' };
    const found = await discoverProvider(issuer);
    expect(!found.ok && found.message).toContain('has no token_endpoint that is an https URL');
  });
});

describe('the ID token', () => {
  it('signs the person in with the scopes of the claim, a string or an array', async () => {
    const fromArray = await signInWith({ roles: ['tickets:read', 'billing:read'], name: 'Carol' });
    expect(fromArray).toEqual({
      ok: true,
      person: {
        sub: 'carol',
        scopes: ['tickets:read', 'billing:read'],
        displayName: 'Carol',
        // No access token answered: the ID token is what auth exchange will exchange.
        providerToken: expect.objectContaining({
          type: 'urn:ietf:params:oauth:token-type:id_token',
        }) as unknown,
      },
    });
    const fromString = await signInWith({ roles: 'tickets:read  billing:read', email: 'c@x' });
    expect(fromString).toMatchObject({
      ok: true,
      person: { sub: 'carol', scopes: ['tickets:read', 'billing:read'], displayName: 'c@x' },
    });
  });

  it('is asked for with client_secret_basic, the code and the PKCE verifier', async () => {
    await signInWith({});
    const expected = `Basic ${Buffer.from(
      `gateway-client:${encodeURIComponent('provider secret/with:odd chars')}`,
    ).toString('base64')}`;
    expect(lastTokenRequest?.authorization).toBe(expected);
    expect(new URLSearchParams(lastTokenRequest!.body).get('code_verifier')).toBe('v');
  });

  it.each([
    ['another nonce', { nonce: 'n-2' }, "the ID token's nonce is not the one this sign-in sent"],
    [
      'another audience',
      { aud: 'someone-else' },
      'the ID token does not verify (ERR_JWT_CLAIM_VALIDATION_FAILED)',
    ],
    [
      'another issuer',
      { iss: 'https://elsewhere.example' },
      'the ID token does not verify (ERR_JWT_CLAIM_VALIDATION_FAILED)',
    ],
    ['an expired token', { exp: 1_000 }, 'the ID token does not verify (ERR_JWT_EXPIRED)'],
  ])('is refused with %s', async (_what, claims, reason) => {
    expect(await signInWith(claims)).toEqual({ ok: false, reason });
  });

  it('is refused unsigned (alg none)', async () => {
    expect(await signInWith({}, true)).toEqual({
      ok: false,
      reason: expect.stringContaining('the ID token does not verify'),
    });
  });
});

describe("Google's two spellings of its issuer", () => {
  it('are both taken in an ID token of https://accounts.google.com, and only its own for any other provider', () => {
    expect(idTokenIssuers('https://accounts.google.com')).toEqual([
      'https://accounts.google.com',
      'accounts.google.com',
    ]);
    expect(idTokenIssuers('https://login.example.com/t/v2.0')).toBe(
      'https://login.example.com/t/v2.0',
    );
  });
});
