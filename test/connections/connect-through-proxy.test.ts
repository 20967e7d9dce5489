/**
 * A gateway whose environment names an egress proxy obtains and revokes its connected
 * accounts' tokens through it: the code exchange and the revocation at the provider go
 * through a real CONNECT proxy that records its tunnels (never around it), and the account
 * still connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startEgressProxy, type EgressProxy } from '../helpers/egress-proxy.js';
import {
  ALICE_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

describe('connected accounts behind an egress proxy', () => {
  let world: ConnectionsWorld;
  let proxy: EgressProxy;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    proxy = await startEgressProxy();
    gw = await startGateway(world.spec(), { env: { ...world.env, HTTP_PROXY: proxy.url } });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await proxy?.close();
    await world?.close();
  });

  it('exchanges the code through the proxy, and never revokes around it', async () => {
    const provider = new URL(world.tokenUrl).host;
    const refused = await postJson(
      `${gw.url}/api/read_whoami`,
      {},
      { authorization: `Bearer ${ALICE_KEY}` },
    );
    expect(refused.status).toBe(403);
    const link = (refused.json as { error: { details: { authorization: { url: string } } } }).error
      .details.authorization.url;
    const done = await connectInBrowser(world, link, ALICE_KEY, 'alice-at-tracker');
    expect(done.status, done.body).toBe(200);
    expect(proxy.targets).toContain(provider);

    const called = await postJson(
      `${gw.url}/api/read_whoami`,
      {},
      { authorization: `Bearer ${ALICE_KEY}` },
    );
    expect(called.status, called.text).toBe(200);
    expect((called.json as { result: { account: string } }).result.account).toBe(
      'alice-at-tracker',
    );

    // With the proxy gone, the revocation cannot reach the provider: it never goes around.
    await proxy.close();
    const revocations = world.revocations.length;
    const removed = await fetch(`${gw.url}/api/connections/tracker`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    expect(removed.status).toBe(200);
    expect(world.revocations.length).toBe(revocations);
  });
});
