/**
 * Connected accounts in Redis (`limits redis-env`): two replicas share them, and what
 * Redis holds is ciphertext under keys that name no caller: read raw, no token, no
 * refresh token, no caller id appears in any spelling, and a record copied under
 * another caller's key opens as no connection.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';
import {
  ALICE_KEY,
  BOB_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();

const callWhoami = (gw: TestGateway, key: string) =>
  postJson(`${gw.url}/api/read_whoami`, {}, { authorization: `Bearer ${key}` });

/** Every spelling of `secret` a careless store might hold. */
function spellings(secret: string): string[] {
  const b64 = Buffer.from(secret).toString('base64');
  return [
    secret,
    b64,
    b64.replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('hex'),
  ];
}

describe.skipIf(
  skipBecause(
    NO_SHARED_REDIS !== undefined,
    `connections-redis.test.ts, Redis: ${NO_SHARED_REDIS}`,
  ),
)('connected accounts kept in Redis', () => {
  let world: ConnectionsWorld;
  let a: TestGateway;
  let b: TestGateway;
  let redis: Redis;
  const prefix = `mcpb:conn:`;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    const env = { ...world.env, REDIS_URL: SHARED_REDIS! };
    const spec = world.spec('limits redis-env="REDIS_URL"');
    a = await startGateway(spec, { env });
    b = await startGateway(spec, { env });
    await world.provider.allowRedirect(`${a.url}/connect/tracker/callback`);
    redis = new Redis(SHARED_REDIS!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await a?.close();
    await b?.close();
    await world?.close();
  });

  it('shares a connection made at one replica with the other, and holds no token or caller in clear', async () => {
    const refused = await callWhoami(a, ALICE_KEY);
    const url = (refused.json as { error: { details: { authorization: { url: string } } } }).error
      .details.authorization.url;
    world.provider.signInAs('alice-at-tracker');
    const done = await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
    expect(done.body).toContain('is connected');
    // Made at a, used at b.
    const res = await callWhoami(b, ALICE_KEY);
    expect(res.status, res.text).toBe(200);
    expect((res.json as { result: { account: string } }).result.account).toBe('alice-at-tracker');

    const keys = await redis.keys(`${prefix}*`);
    const mine = keys.filter((k) => k.startsWith(`${prefix}tracker:`));
    expect(mine.length).toBeGreaterThanOrEqual(1);
    const raw = (await Promise.all(mine.map((k) => redis.get(k)))).join('\n') + keys.join('\n');
    const token = String(world.api.requests.at(-1)!.headers.authorization).slice('Bearer '.length);
    expect(token.length).toBeGreaterThan(10);
    for (const s of spellings(token)) expect(raw).not.toContain(s);
    for (const s of [...spellings('api-key:ALICE_KEY#1'), ALICE_KEY, 'alice-at-tracker'])
      expect(raw).not.toContain(s);
  });

  it('lets one replica refresh a connection near expiry while the other waits for it, so the rotating refresh token is spent once', async () => {
    world.setAccessTokenTtl(30);
    try {
      await fetch(`${a.url}/api/connections/tracker`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ALICE_KEY}` },
      });
      const refused = await callWhoami(a, ALICE_KEY);
      const url = (refused.json as { error: { details: { authorization: { url: string } } } }).error
        .details.authorization.url;
      await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
      world.setAccessTokenTtl(3600);
      const before = world.refreshes();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => callWhoami(i % 2 === 0 ? a : b, ALICE_KEY)),
      );
      for (const res of answers) expect(res.status, res.text).toBe(200);
      expect(world.refreshes()).toBe(before + 1);
    } finally {
      world.setAccessTokenTtl(3600);
    }
  });

  it('opens a record copied under another caller’s key as no connection', async () => {
    const keys = (await redis.keys(`${prefix}tracker:*`)).sort();
    const alices = keys.at(-1)!;
    // Bob has no record; the copy is put where Bob's would be, found by Bob connecting.
    const before = new Set(keys);
    const refused = await callWhoami(a, BOB_KEY);
    expect(refused.status).toBe(403);
    const url = (refused.json as { error: { details: { authorization: { url: string } } } }).error
      .details.authorization.url;
    await connectInBrowser(world, url, BOB_KEY, 'bob-at-tracker');
    const bobs = (await redis.keys(`${prefix}tracker:*`)).find((k) => !before.has(k))!;
    expect(bobs).toBeDefined();
    await redis.set(bobs, (await redis.get(alices))!);
    const res = await callWhoami(a, BOB_KEY);
    expect(res.status).toBe(403);
    expect((res.json as { error: { code: string } }).error.code).toBe('AUTHORIZATION_REQUIRED');
  });
});
