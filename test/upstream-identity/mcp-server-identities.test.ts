/**
 * `auth exchange` on an MCP server over a URL, through a whole gateway, against the real
 * OAuth server: many OAuth callers at once, and each tools/call the MCP server receives
 * carries a token the provider issued for that call's own caller, for the server's
 * audience — checked against the provider's keys — never the caller's own token; the
 * shared handshake carries none, and an API-key caller is refused with nothing sent.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import {
  startIdentityWorld,
  TICKETS,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';

const GATEWAY_AUDIENCE = 'https://gateway.example/mcp';
const KEY = 'mcp-desk-api-key-7e1f0a9b3c5d';

let world: IdentityWorld;
let server: RecordingServer;
let gw: TestGateway;

beforeAll(async () => {
  world = await startIdentityWorld();
  server = await startRecordingServer();
  gw = await startGateway(
    `wrap "mcp-acting" version="1"
mcp-server "tracker" url="${server.url}" {
    auth exchange token-url="${world.tokenUrl}" client-id-env="X_ID" client-secret-env="X_SECRET" audience="${TICKETS}" scope="tickets.read"
}
access {
    api-key env="DESK_KEYS" scopes="desk"
    oauth issuer="${world.provider.issuer}" audience="${GATEWAY_AUDIENCE}" jwks-uri="${world.provider.issuer}/jwks"
}
can search issues {
    describe "Search."
    tool "tracker" "search_issues"
    args {
        query "string"
    }
    scope "desk"
}
`,
    { env: { ...world.env, DESK_KEYS: KEY } },
  );
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
  await world?.close();
});

describe('auth exchange on an MCP server over a URL', () => {
  it("sends each concurrent caller's tools/call with a token the provider issued for that caller", async () => {
    const people = Array.from({ length: 6 }, (_, i) => `mcp-member-${i}`);
    const own = await Promise.all(
      people.map((sub) =>
        world.provider.issueUserToken(sub, { audience: GATEWAY_AUDIENCE, scope: 'desk' }),
      ),
    );
    const before = server.calls().length;
    const order = [...people.keys(), ...people.keys(), ...people.keys()];
    const answers = await Promise.all(
      order.map((i) =>
        postJson(
          `${gw.url}/api/search_issues`,
          { query: people[i] },
          { authorization: `Bearer ${own[i]}` },
        ),
      ),
    );
    for (const res of answers) expect(res.status, res.text).toBe(200);
    const calls = server.calls().slice(before);
    expect(calls).toHaveLength(order.length);
    const jwks = createRemoteJWKSet(new URL(`${world.provider.issuer}/jwks`));
    for (const call of calls) {
      const who = (call.arguments as { query: string }).query;
      const bearer = /^Bearer (\S+)$/.exec(String(call.headers.authorization))?.[1];
      expect(bearer).toBeDefined();
      expect(own).not.toContain(bearer);
      const { payload } = await jwtVerify(bearer!, jwks, {
        issuer: world.provider.issuer,
        audience: TICKETS,
      });
      expect(payload.sub).toBe(who);
      expect(payload.scope).toBe('tickets.read');
    }
    for (const r of server.received.filter((x) => x.method !== 'tools/call'))
      expect(r.headers.authorization).toBeUndefined();
  });

  it('refuses an API-key caller with 403 IDENTITY_UNAVAILABLE and the MCP server hears no call', async () => {
    const before = server.calls().length;
    const res = await postJson(
      `${gw.url}/api/search_issues`,
      { query: 'x' },
      { authorization: `Bearer ${KEY}` },
    );
    expect(res.status).toBe(403);
    expect(res.text).toContain('IDENTITY_UNAVAILABLE');
    expect(server.calls()).toHaveLength(before);
  });
});
