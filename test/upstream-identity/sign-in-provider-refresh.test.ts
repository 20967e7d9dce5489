/**
 * A signed-in person's provider token outlives its provider lifetime through the gateway's
 * refresh (the real OAuth provider, issuing 5-second access tokens and rotating refresh
 * tokens): the sign-in's provider refresh token travels sealed in the gateway's refresh
 * token only, and a refresh of the gateway's token renews the provider token with it, so
 * `auth exchange` keeps acting as the person after the provider token has expired.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKeysFrom, type TokenKeys } from '../../src/access/sign-in/token-key.js';
import type { Caller } from '../../src/engine/caller.js';
import type { TestGateway } from '../helpers/gateway.js';
import { TOKEN_EXCHANGE } from '../helpers/oidc-provider.js';
import {
  signInRaw,
  startSignInGateway,
  startSignInWorld,
  tokenRequest,
  type SignInWorld,
} from '../helpers/sign-in-gateway.js';
import {
  startTokenCheckingApi,
  type TokenCheckingApi,
  type WhoCalled,
} from '../helpers/token-checking-api.js';
import { call } from '../helpers/upstream-identity-world.js';
import { signedInCaller, ticketsExchange } from '../helpers/signed-in-exchange.js';

const TICKETS = 'https://tickets.example';
const X_SECRET = 'exchange-secret-for-refresh-tests-8d2e';
/** The provider's access tokens live this long: short, so a test can outlive one. */
const PROVIDER_TOKEN_S = 5;

let world: SignInWorld;
let gw: TestGateway;
let api: TokenCheckingApi;
let keys: TokenKeys;

beforeAll(async () => {
  world = await startSignInWorld({
    provider: {
      apis: { [TICKETS]: 'tickets.read' },
      serviceClients: [{ id: 'gateway-exchange', secret: X_SECRET, grantTypes: [TOKEN_EXCHANGE] }],
      refreshTokens: true,
      accessTokenTtl: () => PROVIDER_TOKEN_S,
    },
  });
  gw = await startSignInGateway(world);
  api = await startTokenCheckingApi(world.provider.issuer, TICKETS);
  const read = await tokenKeysFrom('GATEWAY_TOKEN_KEY', world.env.GATEWAY_TOKEN_KEY);
  if (!read.ok) throw new Error(read.message);
  keys = read.keys;
});

afterAll(async () => {
  await api?.close();
  await gw?.close();
  await world?.close();
});

const identity = () => ticketsExchange(world.provider.issuer, TICKETS, X_SECRET);

const callerOf = (accessToken: string): Promise<Caller> =>
  signedInCaller(keys, gw.url, accessToken);

async function refresh(clientId: string, refreshToken: string) {
  const res = await tokenRequest(gw.url, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { access_token: string; refresh_token: string };
}

describe("a signed-in person's provider token, renewed by the gateway's refresh", () => {
  it('is exchanged for the person again after the provider token has expired', async () => {
    const { clientId, tokens } = await signInRaw(gw, world.provider, {
      as: 'bob',
      exchangeAt: gw.url,
    });
    const first = (await callerOf(tokens!.access_token)).subjectToken!()!.token;
    // Past the provider token's life: the gateway's access token still verifies, but what
    // it carries for the exchange is spent.
    await new Promise((r) => setTimeout(r, PROVIDER_TOKEN_S * 1000 + 500));
    const refreshed = await refresh(clientId, tokens!.refresh_token);
    const caller = await callerOf(refreshed.access_token);
    expect(caller.subjectToken!()!.token).not.toBe(first);
    const answer = await call(identity(), `${api.url}/whoami`, caller);
    if (!answer.ok) throw new Error(answer.error.message);
    expect(JSON.parse(answer.body) as WhoCalled).toMatchObject({ sub: 'bob', aud: TICKETS });
  });

  it("keeps the provider's rotated refresh token: a second refresh renews again", async () => {
    const { clientId, tokens } = await signInRaw(gw, world.provider, {
      as: 'alice',
      exchangeAt: gw.url,
    });
    const once = await refresh(clientId, tokens!.refresh_token);
    const twice = await refresh(clientId, once.refresh_token);
    const seen = [tokens!, once, twice].map(
      async (t) => (await callerOf(t.access_token)).subjectToken!()!.token,
    );
    expect(new Set(await Promise.all(seen)).size).toBe(3);
    const answer = await call(identity(), `${api.url}/whoami`, await callerOf(twice.access_token));
    if (!answer.ok) throw new Error(answer.error.message);
    expect((JSON.parse(answer.body) as WhoCalled).sub).toBe('alice');
  });

  it('never puts the provider refresh token in an access token', async () => {
    const { tokens } = await signInRaw(gw, world.provider, { as: 'alice', exchangeAt: gw.url });
    const claims = decodeJwt(tokens!.access_token);
    expect(Object.keys(claims)).not.toContain('prt');
    expect(tokens!.access_token.length).toBeLessThan(2048);
  });
});
