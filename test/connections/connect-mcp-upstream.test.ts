/**
 * `auth user` on an `mcp-server` upstream: the same connected account as for HTTP
 * upstreams. Before the caller connects, the tool call is answered
 * AUTHORIZATION_REQUIRED and no tools/call reaches the server; after, the server's
 * tools/call carries the caller's own token, which the provider knows as the caller's
 * account, and never the caller's key. The upstream is a real SDK v2 MCP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import {
  ALICE_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

describe('a connected account used for an upstream MCP server', () => {
  let world: ConnectionsWorld;
  let server: RecordingServer;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    server = await startRecordingServer();
    const spec = world.spec().replace(
      /upstream "tracker"[\s\S]*$/,
      `mcp-server "issues" url="${server.url}" {
    auth user provider="tracker"
}
can search issues {
    describe "Search the tracker's issues as yourself."
    tool "issues" "search_issues"
    args {
        query "string" required=#true
    }
}
`,
    );
    gw = await startGateway(spec, { env: world.env });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await server?.close();
    await world?.close();
  });

  const search = () =>
    postJson(
      `${gw.url}/api/search_issues`,
      { query: 'open' },
      { authorization: `Bearer ${ALICE_KEY}` },
    );

  it('asks the caller to connect first, then calls the server with the caller’s own token', async () => {
    const refused = await search();
    expect(refused.status, refused.text).toBe(403);
    const error = (
      refused.json as { error: { code: string; details: { authorization: { url: string } } } }
    ).error;
    expect(error.code).toBe('AUTHORIZATION_REQUIRED');
    expect(server.calls()).toHaveLength(0);

    await connectInBrowser(world, error.details.authorization.url, ALICE_KEY, 'alice-at-tracker');
    const res = await search();
    expect(res.status, res.text).toBe(200);
    const calls = server.calls();
    expect(calls).toHaveLength(1);
    const bearer = String(calls[0]!.headers.authorization ?? '');
    expect(bearer).toMatch(/^Bearer \S+$/);
    // The provider knows that token as Alice's account.
    const who = await fetch(`${world.provider.issuer}/me`, { headers: { authorization: bearer } });
    expect(((await who.json()) as { sub: string }).sub).toBe('alice-at-tracker');
    for (const r of server.received) expect(JSON.stringify(r.headers)).not.toContain(ALICE_KEY);
  });
});
