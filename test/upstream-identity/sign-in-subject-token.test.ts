/**
 * `auth exchange` for a person signed in through the gateway (issue 43): the provider's
 * token from the sign-in travels sealed (AES-GCM under the token key) in the claim `pt` of
 * the gateway's access token and in its refresh token, is opened only when an exchange asks
 * for it, and is exchanged at the provider for a token the upstream sees as that person.
 * The MCP client holding the gateway's token cannot read it, and another key cannot open it.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/access/sign-in/sealed.js';
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
const X_SECRET = 'exchange-secret-for-sign-in-tests-31c7';

let world: SignInWorld;
let gw: TestGateway;
let api: TokenCheckingApi;
let keys: TokenKeys;

beforeAll(async () => {
  world = await startSignInWorld({
    provider: {
      apis: { [TICKETS]: 'tickets.read' },
      serviceClients: [{ id: 'gateway-exchange', secret: X_SECRET, grantTypes: [TOKEN_EXCHANGE] }],
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

const callerOf = (accessToken: string, sealer?: Sealer): Promise<Caller> =>
  signedInCaller(keys, gw.url, accessToken, sealer);

describe('the provider token from a sign-in', () => {
  it('is exchanged for the signed-in person: the upstream sees their subject', async () => {
    const { tokens } = await signInRaw(gw, world.provider, { as: 'bob', exchangeAt: gw.url });
    const caller = await callerOf(tokens!.access_token);
    expect(caller.client).toBeDefined();
    expect(caller.subjectToken?.()?.type).toBe('urn:ietf:params:oauth:token-type:access_token');
    const answer = await call(identity(), `${api.url}/whoami`, caller);
    if (!answer.ok) throw new Error(answer.error.message);
    expect(JSON.parse(answer.body) as WhoCalled).toMatchObject({ sub: 'bob', aud: TICKETS });
  });

  it("travels sealed: the gateway's access token names no provider token, and its claims hide the seal", async () => {
    const { tokens } = await signInRaw(gw, world.provider, { as: 'alice', exchangeAt: gw.url });
    const caller = await callerOf(tokens!.access_token);
    const provider = caller.subjectToken!()!.token;
    expect(tokens!.access_token).not.toContain(provider);
    const pt = decodeJwt(tokens!.access_token).pt as string;
    expect(Buffer.from(pt, 'base64url').toString('latin1')).not.toContain(provider);
    expect(caller.claims?.pt).toBeUndefined();
    expect(JSON.stringify(caller)).not.toContain(provider);
    // The size the seal adds, for docs/security.md.
    expect(tokens!.access_token.length).toBeLessThan(2048);
  });

  it('is carried on by a refresh: the new access token is exchanged for the same person', async () => {
    const { clientId, tokens } = await signInRaw(gw, world.provider, {
      as: 'alice',
      exchangeAt: gw.url,
    });
    const refreshed = await tokenRequest(gw.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens!.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const caller = await callerOf(refreshed.json.access_token as string);
    const answer = await call(identity(), `${api.url}/whoami`, caller);
    if (!answer.ok) throw new Error(answer.error.message);
    expect((JSON.parse(answer.body) as WhoCalled).sub).toBe('alice');
  });

  it('does not open under another key: the caller has nothing to exchange (IDENTITY_UNAVAILABLE)', async () => {
    const { tokens } = await signInRaw(gw, world.provider, { as: 'alice', exchangeAt: gw.url });
    const other = await tokenKeysFrom('K', randomBytes(32).toString('hex'));
    if (!other.ok) throw new Error(other.message);
    const caller = await callerOf(tokens!.access_token, new Sealer(other.keys.sealing));
    const seen = api.authorizations.length;
    const answer = await call(identity(), `${api.url}/whoami`, caller);
    expect(!answer.ok && answer.error.code).toBe('IDENTITY_UNAVAILABLE');
    expect(api.authorizations.length).toBe(seen);
  });
});
