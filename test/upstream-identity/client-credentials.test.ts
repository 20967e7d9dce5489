/**
 * `auth client-credentials` against a real OAuth server (oidc-provider's own
 * client_credentials grant) and an API that verifies every token it is sent: one token
 * request however many calls arrive at once, the token reused from memory, one renewal and
 * one retry after an upstream 401, and a refusal that names the endpoint's error code
 * while nothing reaches the upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenAuth } from '../../src/compiler/descriptor.js';
import { openIdentity } from '../../src/engine/backends/upstream/upstream-identity.js';
import { clientCredentialsIdentity } from '../../src/engine/backends/upstream/identity/client-credentials.js';
import {
  call,
  startIdentityWorld,
  TICKETS,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';
import type { WhoCalled } from '../helpers/token-checking-api.js';

let world: IdentityWorld;

beforeAll(async () => {
  world = await startIdentityWorld();
});

afterAll(async () => {
  await world?.close();
});

const auth = (
  over: Partial<Omit<TokenAuth, 'kind'>> = {},
): TokenAuth & { kind: 'client-credentials' } => ({
  kind: 'client-credentials',
  tokenUrl: world.tokenUrl,
  clientIdEnv: 'CC_ID',
  clientSecretEnv: 'CC_SECRET',
  scope: 'tickets.read',
  audience: TICKETS,
  ...over,
});

const tokenRequests = (): number =>
  world.provider.tokenRequests.filter((g) => g === 'client_credentials').length;

describe('auth client-credentials', () => {
  it('obtains one token for twenty concurrent calls, and the API sees the gateway client with the scope asked', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    expect(identity.kind).toBe('client-credentials');
    const before = tokenRequests();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(identity, `${world.tickets.url}/whoami`)),
    );
    expect(tokenRequests() - before).toBe(1);
    for (const a of answers) {
      expect(a.ok && a.status).toBe(200);
      const who = JSON.parse((a as { body: string }).body) as WhoCalled;
      expect(who).toMatchObject({
        client_id: 'gateway-service',
        aud: TICKETS,
        scope: 'tickets.read',
      });
    }
  });

  it('reuses the cached token on later calls, answering without a promise', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    await call(identity, `${world.tickets.url}/whoami`);
    const before = tokenRequests();
    const held = identity.forCall({});
    expect(held).not.toBeInstanceOf(Promise);
    expect(identity.forCall({})).toBe(held);
    for (let i = 0; i < 5; i++)
      expect((await call(identity, `${world.tickets.url}/whoami`)).ok).toBe(true);
    expect(tokenRequests() - before).toBe(0);
  });

  it('after an upstream 401 obtains one new token and retries the call once, which succeeds', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    await call(identity, `${world.tickets.url}/whoami`);
    const before = tokenRequests();
    const seenBefore = world.tickets.authorizations.length;
    world.tickets.refuseNext(1);
    const answer = await call(identity, `${world.tickets.url}/whoami`);
    expect(answer.ok && answer.status).toBe(200);
    expect(tokenRequests() - before).toBe(1);
    const sent = world.tickets.authorizations.slice(seenBefore);
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toBe(sent[1]);
  });

  it('retries only once: a second 401 is the answer', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const seenBefore = world.tickets.authorizations.length;
    world.tickets.refuseNext(2);
    const answer = await call(identity, `${world.tickets.url}/whoami`);
    expect(answer.ok && answer.status).toBe(401);
    expect(world.tickets.authorizations.length - seenBefore).toBe(2);
  });

  it('answers UPSTREAM_AUTH naming the OAuth error code when the endpoint refuses, and nothing is sent upstream', async () => {
    const identity = await openIdentity(auth(), {
      env: { ...world.env, CC_SECRET: 'not-the-secret-0000000000' },
      upstream: 'tickets',
    });
    const seenBefore = world.tickets.authorizations.length;
    const answer = await call(identity, `${world.tickets.url}/whoami`);
    expect(answer.ok).toBe(false);
    const { error } = answer as { error: { code: string; message: string; details?: unknown } };
    expect(error.code).toBe('UPSTREAM_AUTH');
    expect(error.message).toContain('invalid_client');
    expect(error.message).toContain('tickets');
    expect(error.message).not.toContain('not-the-secret');
    expect(error.details).toEqual({ oauth_error: 'invalid_client' });
    expect(world.tickets.authorizations.length).toBe(seenBefore);
  });

  it('answers UPSTREAM_AUTH for an audience the endpoint does not know (invalid_target)', async () => {
    const identity = await openIdentity(auth({ audience: 'https://nobody.example' }), {
      env: world.env,
      upstream: 'tickets',
    });
    const answer = await call(identity, `${world.tickets.url}/whoami`);
    expect(!answer.ok && answer.error.message).toContain('invalid_target');
  });

  it('does not keep a failure forever: within the backoff calls get the same answer unsent, after it the endpoint is asked again', async () => {
    let now = 1_000_000_000_000;
    const env = { ...world.env, CC_SECRET: 'wrong-secret-for-now-000000' };
    const identity = clientCredentialsIdentity(
      auth(),
      { env, upstream: 'tickets' },
      { now: () => now },
    );
    const before = tokenRequests();
    expect((await call(identity, `${world.tickets.url}/whoami`)).ok).toBe(false);
    expect((await call(identity, `${world.tickets.url}/whoami`)).ok).toBe(false);
    expect(tokenRequests() - before).toBe(1);
    now += 1_001;
    expect((await call(identity, `${world.tickets.url}/whoami`)).ok).toBe(false);
    expect(tokenRequests() - before).toBe(2);
  });

  it('obtains a new token once the cached one is within 30 s of its expiry', async () => {
    let now = Date.now();
    const identity = clientCredentialsIdentity(
      auth(),
      { env: world.env, upstream: 'tickets' },
      { now: () => now },
    );
    await call(identity, `${world.tickets.url}/whoami`);
    const before = tokenRequests();
    // oidc-provider's tokens here live API_TOKEN_TTL_S (600 s).
    now += (600 - 31) * 1000;
    await call(identity, `${world.tickets.url}/whoami`);
    expect(tokenRequests() - before).toBe(0);
    now += 2_000;
    await call(identity, `${world.tickets.url}/whoami`);
    expect(tokenRequests() - before).toBe(1);
  });

  it('redacts the obtained token when the upstream echoes it raw, JSON-escaped and in base64', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    const answer = await call(identity, `${world.tickets.url}/echo`);
    expect(answer.ok).toBe(true);
    const body = JSON.parse((answer as { body: string }).body) as Record<string, string>;
    const sent = world.tickets.authorizations.at(-1)!;
    const token = sent.slice('Bearer '.length);
    // A JWT's segments are base64url themselves: the redactor may mark them more than once.
    expect(body.raw).toMatch(/^token=(\[REDACTED\])+$/);
    expect(body.escaped).not.toContain(token);
    expect(body.escaped).toContain('[REDACTED]');
    expect(body.base64).not.toContain(Buffer.from(sent).toString('base64').slice(8, 40));
    expect(body.base64).toContain('[REDACTED]');
  });

  it('names the client secret among the secrets the gateway redacts', async () => {
    const identity = await openIdentity(auth(), { env: world.env, upstream: 'tickets' });
    expect(identity.secrets()).toContain(world.env.CC_SECRET);
  });

  it('stops start-up naming the variable when the client secret is not set', async () => {
    await expect(
      openIdentity(auth(), { env: { CC_ID: 'gateway-service' }, upstream: 'tickets' }),
    ).rejects.toThrow(/CC_SECRET/);
  });
});
