/**
 * `auth user` end to end (spec-language.md, "On whose behalf (upstream identity)"): a call
 * whose caller has not connected an account is answered AUTHORIZATION_REQUIRED with a
 * connect link and sends nothing; the link, opened as that caller, runs the provider's
 * code flow; the next call reaches the tracker API as the caller's own account, which
 * the API checked at the provider. Every part is real: oidc-provider, the API, the
 * gateway, a browser played by fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  ALICE_KEY,
  BOB_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

interface Refusal {
  error: { code: string; message: string; details?: { authorization?: Record<string, string> } };
}

const callWhoami = (gw: TestGateway, key: string) =>
  postJson(`${gw.url}/api/read_whoami`, {}, { authorization: `Bearer ${key}` });

async function connectLink(gw: TestGateway, key: string): Promise<string> {
  const res = await callWhoami(gw, key);
  expect(res.status).toBe(403);
  const body = res.json as Refusal;
  expect(body.error.code).toBe('AUTHORIZATION_REQUIRED');
  return body.error.details!.authorization!.url!;
}

describe('a connected account (auth user)', () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    gw = await startGateway(world.spec(), { env: world.env });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await world?.close();
  });

  it('answers a caller with no connection AUTHORIZATION_REQUIRED naming provider, link and expiry, and sends nothing', async () => {
    const before = world.api.requests.length;
    const res = await callWhoami(gw, ALICE_KEY);
    expect(res.status).toBe(403);
    const { error } = res.json as Refusal;
    expect(error.code).toBe('AUTHORIZATION_REQUIRED');
    const auth = error.details!.authorization!;
    expect(auth.provider).toBe('tracker');
    expect(auth.url).toMatch(new RegExp(`^${gw.url}/connect/tracker/[A-Za-z0-9_-]+$`));
    expect(Date.parse(auth.expires_at!)).toBeGreaterThan(Date.now());
    expect(error.message).toContain(auth.url);
    expect(world.api.requests.length).toBe(before);
  });

  it('connects the caller through the provider and then calls the tracker as the caller’s own account', async () => {
    const url = await connectLink(gw, ALICE_KEY);
    const done = await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
    expect(done.status).toBe(200);
    expect(done.body).toContain('is connected');
    const res = await callWhoami(gw, ALICE_KEY);
    expect(res.status).toBe(200);
    expect((res.json as { result: { account: string } }).result).toEqual({
      account: 'alice-at-tracker',
    });
    // The caller's own key never went upstream: only the provider's token did.
    for (const r of world.api.requests) {
      expect(JSON.stringify(r.headers)).not.toContain(ALICE_KEY);
      expect(JSON.stringify(r.headers)).not.toContain(BOB_KEY);
    }
  });
});
