/**
 * A connected account whose provider gave no refresh token: when the upstream stops
 * accepting its access token (a 401), the gateway cannot renew it, so it forgets the
 * connection, says so in the audit, and answers AUTHORIZATION_REQUIRED with a new connect
 * link — without sending the refused token again. Real provider, relay and API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  ALICE_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

interface Refusal {
  error: { code: string; message: string; details?: { authorization?: { url: string } } };
}

describe('a connected account without a refresh token', () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    world.withholdRefreshTokens(true);
    gw = await startGateway(world.spec(), { env: world.env });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await world?.close();
  });

  const whoami = () =>
    postJson(`${gw.url}/api/read_whoami`, {}, { authorization: `Bearer ${ALICE_KEY}` });

  it('is forgotten after the upstream’s 401, and the caller is asked to connect again', async () => {
    const first = await whoami();
    expect(first.status).toBe(403);
    const link = (first.json as Refusal).error.details!.authorization!.url;
    const done = await connectInBrowser(world, link, ALICE_KEY, 'alice-at-tracker');
    expect(done.status, done.body).toBe(200);
    const called = await whoami();
    expect(called.status, called.text).toBe(200);
    expect(world.refreshes()).toBe(0);

    world.refuseApiNext(1);
    const seen = world.api.requests.length;
    const refused = await whoami();
    expect(refused.status, refused.text).toBe(403);
    const { error } = refused.json as Refusal;
    expect(error.code).toBe('AUTHORIZATION_REQUIRED');
    expect(error.message).toContain('no longer accepts it');
    expect(error.details!.authorization!.url).toMatch(`${gw.url}/connect/tracker/`);
    const removed = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('"audit":"connection"') && l.includes('"event":"removed"'));
    expect(removed).toHaveLength(1);
    expect(removed[0]).toContain('"reason":"upstream 401"');
    expect(removed[0]).toContain('"provider":"tracker"');
    // One request, the refused one: no retry with the token the API just refused.
    expect(world.api.requests.length - seen).toBe(1);
    expect(world.refreshes()).toBe(0);

    // The connection is gone: the next call is refused before anything is sent.
    const after = world.api.requests.length;
    const next = await whoami();
    expect(next.status).toBe(403);
    expect((next.json as Refusal).error.message).toContain('you have not connected it');
    expect(world.api.requests.length).toBe(after);
    const listed = await fetch(`${gw.url}/api/connections`, {
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    const rows = ((await listed.json()) as { connections: { connected: boolean }[] }).connections;
    expect(rows[0]!.connected).toBe(false);
  });
});
