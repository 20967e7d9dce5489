/**
 * `/token`'s decisions as pure logic (src/access/sign-in/token-endpoint.ts; spec-language.md,
 * "Sign-in for MCP clients"), with the sealer's clock in the test's hand: codes and refresh
 * tokens expire, a value sealed for one purpose never opens as another, and each parameter
 * the client sends is checked against what was sealed. The single-use store is the real
 * in-memory one.
 */
import { createClientMetadataFetcher } from '../../src/access/sign-in/client-metadata-document.js';
import { createHash, randomBytes, createSecretKey } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/access/sign-in/sealed.js';
import { tokenKeysOf } from '../../src/access/sign-in/token-key.js';
import { createMemorySpentStates } from '../../src/engine/consent/spent-states.js';
import { createIdentityProvider } from '../../src/access/sign-in/identity-provider.js';
import { answerToken } from '../../src/access/sign-in/token-endpoint.js';
import type { SignInServices } from '../../src/access/sign-in/sign-in-services.js';
import {
  SIGN_IN_TTL_MS,
  type SealedCode,
  type SealedRefresh,
  type SealedRegistration,
} from '../../src/access/sign-in/sign-in-types.js';

const BASE = 'https://gw.example';
const REDIRECT = 'http://127.0.0.1:5000/cb';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

let now = Date.now();
let services: SignInServices;
let clientId: string;

beforeEach(async () => {
  now = Date.now();
  const keys = await tokenKeysOf(createSecretKey(randomBytes(32)));
  const sealer = new Sealer(keys.sealing, () => now);
  services = {
    descriptor: {
      issuer: 'https://idp.example',
      clientIdEnv: 'A',
      clientSecretEnv: 'B',
      scopes: ['openid'],
    },
    keys,
    sealer,
    // Not reached by /token: the provider is only asked at the callback.
    provider: createIdentityProvider(
      { issuer: 'https://idp.example', clientIdEnv: 'A', clientSecretEnv: 'B', scopes: ['openid'] },
      {
        issuer: 'https://idp.example',
        authorizationEndpoint: 'https://idp.example/auth',
        tokenEndpoint: 'https://idp.example/token',
        jwksUri: 'https://idp.example/jwks',
      },
      { id: 'gw', secret: 's' },
    ),
    spent: createMemorySpentStates({ now: () => now }),
    // Not reached either: these tests' clients are sealed registrations.
    clientMetadata: createClientMetadataFetcher(),
    secrets: [],
    audit: () => {},
    close: async () => {},
  };
  const registration: SealedRegistration = { redirect_uris: [REDIRECT], at: now };
  clientId = sealer.seal('client-registration', registration, SIGN_IN_TTL_MS.registration);
});

function code(change: Partial<SealedCode> = {}): string {
  const sealed: SealedCode = {
    jti: randomBytes(16).toString('base64url'),
    clientId,
    redirectUri: REDIRECT,
    codeChallenge: challenge,
    resource: `${BASE}/mcp`,
    scopes: ['tickets:read'],
    sub: 'dana',
    ...change,
  };
  return services.sealer.seal('authorization-code', sealed, SIGN_IN_TTL_MS.authorizationCode);
}

function refresh(): string {
  const sealed: SealedRefresh = {
    jti: randomBytes(16).toString('base64url'),
    clientId,
    resource: `${BASE}/mcp`,
    scopes: ['tickets:read'],
    sub: 'dana',
  };
  return services.sealer.seal('refresh-token', sealed, SIGN_IN_TTL_MS.refreshToken);
}

const exchange = (form: Record<string, string | string[]>) => answerToken(services, BASE, form);
const codeForm = (c: string, change: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code: c,
  redirect_uri: REDIRECT,
  client_id: clientId,
  code_verifier: verifier,
  ...change,
});

describe('the authorization_code grant', () => {
  it('issues tokens for a good code', async () => {
    const result = await exchange(codeForm(code()));
    expect(result.ok && result.answer).toMatchObject({
      token_type: 'Bearer',
      scope: 'tickets:read',
    });
  });

  it('refuses a code past its 60 seconds', async () => {
    const c = code();
    now += SIGN_IN_TTL_MS.authorizationCode + 1;
    expect(await exchange(codeForm(c))).toMatchObject({
      ok: false,
      refusal: { error: 'invalid_grant', description: 'code has expired' },
    });
  });

  it('refuses a refresh token presented as a code', async () => {
    expect(await exchange(codeForm(refresh()))).toMatchObject({
      refusal: { error: 'invalid_grant', description: 'code is not a code this gateway issued' },
    });
  });

  it('refuses another redirect URI, another resource and a missing verifier', async () => {
    expect(
      await exchange(codeForm(code(), { redirect_uri: 'http://127.0.0.1:5000/other' })),
    ).toMatchObject({
      refusal: {
        error: 'invalid_grant',
        description: 'redirect_uri is not the one the code was asked with',
      },
    });
    expect(await exchange(codeForm(code(), { resource: `${BASE}/mcp/other` }))).toMatchObject({
      refusal: { error: 'invalid_target' },
    });
    const { code_verifier: _v, ...without } = codeForm(code());
    expect(await exchange(without)).toMatchObject({
      refusal: {
        error: 'invalid_grant',
        description: expect.stringContaining('code_verifier is required'),
      },
    });
  });

  it('refuses a parameter given twice and a missing client_id', async () => {
    expect(await exchange({ ...codeForm(code()), code: ['a', 'b'] })).toMatchObject({
      refusal: { error: 'invalid_request', description: 'code is given more than once' },
    });
    const { client_id: _c, ...without } = codeForm(code());
    expect(await exchange(without)).toMatchObject({
      refusal: { error: 'invalid_request', description: 'client_id is required' },
    });
  });

  it('refuses a client whose registration has expired', async () => {
    const c = code();
    const registration: SealedRegistration = { redirect_uris: [REDIRECT], at: now };
    const shortLived = services.sealer.seal('client-registration', registration, 10);
    now += 11;
    const result = await exchange(
      codeForm(code({ clientId: shortLived }), { client_id: shortLived }),
    );
    expect(result).toMatchObject({ refusal: { error: 'invalid_client' } });
    // The other, still registered, client is unaffected.
    expect((await exchange(codeForm(c))).ok).toBe(true);
  });
});

describe('the refresh_token grant', () => {
  it('refuses a refresh token past its lifetime', async () => {
    const r = refresh();
    now += SIGN_IN_TTL_MS.refreshToken + 1;
    expect(
      await exchange({ grant_type: 'refresh_token', refresh_token: r, client_id: clientId }),
    ).toMatchObject({
      refusal: { error: 'invalid_grant', description: 'refresh_token has expired: sign in again' },
    });
  });

  it('rotates without extending the grant: the new refresh token ends when the first did', async () => {
    const first = refresh();
    const firstEnd = services.sealer.open('refresh-token', first);
    now += 24 * 60 * 60_000;
    const result = await exchange({
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: clientId,
    });
    const rotated = services.sealer.open('refresh-token', result.ok && result.answer.refresh_token);
    expect(rotated.ok && rotated.expiresAt).toBe(firstEnd.ok && firstEnd.expiresAt);
  });

  it('refuses a refresh token presented by another client', async () => {
    expect(
      await exchange({
        grant_type: 'refresh_token',
        refresh_token: refresh(),
        client_id: 'someone-else',
      }),
    ).toMatchObject({
      refusal: {
        error: 'invalid_grant',
        description: 'refresh_token was issued to another client_id',
      },
    });
  });
});
