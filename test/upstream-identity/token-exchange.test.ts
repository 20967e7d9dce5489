/**
 * `auth exchange` (RFC 8693) against a real OAuth server with the token-exchange grant
 * registered, and APIs that verify every token: the caller's own token becomes one narrowed
 * to the upstream's audience and scope, the upstream sees the caller's subject, a caller
 * with nothing to exchange is refused with nothing sent, many callers at once each get
 * their own token, and the caller's own token never reaches the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenAuth } from '../../src/compiler/descriptor.js';
import type { Caller } from '../../src/engine/caller.js';
import { openIdentity } from '../../src/engine/backends/upstream/upstream-identity.js';
import { exchangeIdentity } from '../../src/engine/backends/upstream/identity/exchange.js';
import { createOAuthVerifier } from '../../src/access/oauth.js';
import {
  BILLING,
  call,
  startIdentityWorld,
  TICKETS,
  tokenCaller,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';
import type { WhoCalled } from '../helpers/token-checking-api.js';
import { TOKEN_EXCHANGE } from '../helpers/oidc-provider.js';

let world: IdentityWorld;

beforeAll(async () => {
  world = await startIdentityWorld();
});

afterAll(async () => {
  await world?.close();
});

const auth = (over: Partial<Omit<TokenAuth, 'kind'>> = {}): TokenAuth & { kind: 'exchange' } => ({
  kind: 'exchange',
  tokenUrl: world.tokenUrl,
  clientIdEnv: 'X_ID',
  clientSecretEnv: 'X_SECRET',
  audience: TICKETS,
  scope: 'tickets.read',
  ...over,
});

const exchanges = (): number =>
  world.provider.tokenRequests.filter((g) => g === TOKEN_EXCHANGE).length;

const who = (answer: Awaited<ReturnType<typeof call>>): WhoCalled => {
  if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as WhoCalled;
};

describe('auth exchange', () => {
  it("calls the upstream as the caller with a token narrowed to the upstream's audience and scope", async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    expect(identity.kind).toBe('exchange');
    // The caller's token is for the gateway, with more scope than the upstream gets.
    const own = await world.provider.issueUserToken('alice', {
      audience: 'http://127.0.0.1/mcp',
      scope: 'openid tickets.read tickets.write billing.read',
    });
    const answer = who(
      await call(identity, `${world.tickets.url}/whoami`, tokenCaller('alice', own)),
    );
    expect(answer).toEqual({
      sub: 'alice',
      aud: TICKETS,
      scope: 'tickets.read',
      client_id: 'gateway-exchange',
    });
  });

  it('exchanges the bearer of a caller that access oauth verified, and carries its client', async () => {
    const own = await world.provider.issueUserToken('carol', {
      audience: 'https://gateway.example/mcp',
      clientId: 'carols-agent',
    });
    const verifier = createOAuthVerifier({
      issuer: world.provider.issuer,
      audience: 'https://gateway.example/mcp',
      jwksUri: `${world.provider.issuer}/jwks`,
    });
    const checked = await verifier.verify(own);
    expect(checked.ok).toBe(true);
    const caller = (checked as { caller: Caller }).caller;
    expect(caller.client).toBe('carols-agent');
    // The token is reachable only through the function: a copy of the caller holds none.
    expect(JSON.stringify(caller)).not.toContain(own);
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    expect(who(await call(identity, `${world.tickets.url}/whoami`, caller)).sub).toBe('carol');
  });

  it('refuses a caller with nothing to exchange with IDENTITY_UNAVAILABLE, and neither the token endpoint nor the upstream hears of it', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const before = exchanges();
    const seen = world.tickets.authorizations.length;
    const apiKeyCaller: Caller = { id: 'key:ci', scopes: new Set() };
    for (const caller of [apiKeyCaller, undefined]) {
      const answer = await call(identity, `${world.tickets.url}/whoami`, caller);
      expect(answer.ok).toBe(false);
      const error = (answer as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('IDENTITY_UNAVAILABLE');
      expect(error.message).toContain('tickets');
    }
    expect(exchanges()).toBe(before);
    expect(world.tickets.authorizations.length).toBe(seen);
  });

  it('gives each of many concurrent callers the token issued for its own subject, one exchange each', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const people = Array.from({ length: 12 }, (_, i) => `person-${i}`);
    const callers = await Promise.all(
      people.map(async (sub) => tokenCaller(sub, await world.provider.issueUserToken(sub))),
    );
    const before = exchanges();
    // Five calls per caller, all interleaved: a cache keyed wrongly hands some caller a
    // token exchanged for another, and the API would name the wrong subject.
    const order = Array.from({ length: 5 }, () => callers).flat();
    const answers = await Promise.all(
      order.map((c) => call(identity, `${world.tickets.url}/whoami`, c)),
    );
    answers.forEach((a, i) => expect(who(a).sub).toBe(order[i]!.id.slice('sub:'.length)));
    expect(exchanges() - before).toBe(people.length);
  });

  it('keys the cache on the subject token, not on the caller id: two callers with one id keep their own tokens', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const dave = tokenCaller('dave', await world.provider.issueUserToken('dave'));
    const erin = {
      ...tokenCaller('erin', await world.provider.issueUserToken('erin')),
      id: 'sub:dave',
    };
    expect(who(await call(identity, `${world.tickets.url}/whoami`, dave)).sub).toBe('dave');
    expect(who(await call(identity, `${world.tickets.url}/whoami`, erin)).sub).toBe('erin');
  });

  it("never forwards the caller's own token upstream: the upstream is sent only exchanged tokens", async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const own = await world.provider.issueUserToken('frank', {
      audience: TICKETS,
      scope: 'tickets.read',
    });
    const seen = world.tickets.authorizations.length;
    expect(
      who(await call(identity, `${world.tickets.url}/whoami`, tokenCaller('frank', own))).sub,
    ).toBe('frank');
    const sent = world.tickets.authorizations.slice(seen);
    expect(sent.length).toBeGreaterThan(0);
    for (const a of sent) expect(a).not.toContain(own);
  });

  it('exchanges separately per upstream: a token for one audience never goes to the other', async () => {
    const tickets = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const billing = await openIdentity(auth({ audience: BILLING, scope: 'billing.read' }), {
      env: world.env,
      upstream: 'billing',
    });
    const grace = tokenCaller('grace', await world.provider.issueUserToken('grace'));
    expect(who(await call(tickets, `${world.tickets.url}/whoami`, grace)).aud).toBe(TICKETS);
    expect(who(await call(billing, `${world.billing.url}/whoami`, grace))).toMatchObject({
      aud: BILLING,
      scope: 'billing.read',
      sub: 'grace',
    });
  });

  it("stops using an exchanged token 30 s before the subject token's own expiry", async () => {
    let now = Date.now();
    const identity = exchangeIdentity(
      auth(),
      { env: world.env, upstream: 'tickets' },
      { now: () => now },
    );
    // The caller's token ends in 120 s, long before the exchanged one's 600 s.
    const heidi = tokenCaller(
      'heidi',
      await world.provider.issueUserToken('heidi', { expiresInS: 120 }),
    );
    const before = exchanges();
    await call(identity, `${world.tickets.url}/whoami`, heidi);
    now += 80_000;
    await call(identity, `${world.tickets.url}/whoami`, heidi);
    expect(exchanges() - before).toBe(1);
    now += 15_000;
    const renewed = identity.forCall({ caller: heidi });
    expect(renewed).toBeInstanceOf(Promise);
    await renewed;
    expect(exchanges() - before).toBe(2);
  });

  it('answers UPSTREAM_AUTH with the OAuth error code when the subject token is refused, sending nothing upstream', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const seen = world.tickets.authorizations.length;
    const forged = tokenCaller('mallory', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.');
    const answer = await call(identity, `${world.tickets.url}/whoami`, forged);
    expect(!answer.ok && answer.error.code).toBe('UPSTREAM_AUTH');
    expect(!answer.ok && answer.error.message).toContain('invalid_grant');
    expect(world.tickets.authorizations.length).toBe(seen);
  });

  it('after an upstream 401 exchanges again once for that caller and retries', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const ivan = tokenCaller('ivan', await world.provider.issueUserToken('ivan'));
    await call(identity, `${world.tickets.url}/whoami`, ivan);
    const before = exchanges();
    world.tickets.refuseNext(1);
    expect(who(await call(identity, `${world.tickets.url}/whoami`, ivan)).sub).toBe('ivan');
    expect(exchanges() - before).toBe(1);
  });

  it('redacts the exchanged token when the upstream echoes it', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const judy = tokenCaller('judy', await world.provider.issueUserToken('judy'));
    const answer = await call(identity, `${world.tickets.url}/echo`, judy);
    const token = world.tickets.authorizations.at(-1)!.slice('Bearer '.length);
    expect(answer.ok).toBe(true);
    const body = (answer as { body: string }).body;
    expect(body).not.toContain(token);
    expect(body).not.toContain(Buffer.from(`Bearer ${token}`).toString('base64'));
    expect(body).toContain('[REDACTED]');
  });
});
