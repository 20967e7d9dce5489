/**
 * `auth exchange` on a 2025-era MCP server over a URL that authorizes every request and
 * binds each session to the person who opened it (a real SDK v1 server, the real OAuth
 * provider): each caller's calls go on a session their own token opened, so the server
 * never sees a call on someone else's session, an `initialize` without a token, or a
 * caller whose calls fail for another's; the gateway ends those sessions when it stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  startSessionBindingServer,
  type SessionBindingServer,
} from '../helpers/session-binding-mcp-server.js';
import {
  startIdentityWorld,
  TICKETS,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';

const GATEWAY_AUDIENCE = 'https://gateway.example/mcp';

let world: IdentityWorld;
let server: SessionBindingServer;
let gw: TestGateway | undefined;

beforeAll(async () => {
  world = await startIdentityWorld();
  server = await startSessionBindingServer({ issuer: world.provider.issuer, audience: TICKETS });
  gw = await startGateway(
    `wrap "mcp-sessions" version="1"
mcp-server "desk" url="${server.url}" {
    auth exchange token-url="${world.tokenUrl}" client-id-env="X_ID" client-secret-env="X_SECRET" audience="${TICKETS}" scope="tickets.read"
}
access {
    oauth issuer="${world.provider.issuer}" audience="${GATEWAY_AUDIENCE}" jwks-uri="${world.provider.issuer}/jwks"
}
can read whoami {
    describe "Whose session is this."
    tool "desk" "whoami"
    args {
        note "string"
    }
}
`,
    { env: world.env },
  );
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
  await world?.close();
});

describe('a 2025-era MCP server that binds each session to its caller', () => {
  it("answers every caller's concurrent calls on a session opened with that caller's own token", async () => {
    const people = Array.from({ length: 5 }, (_, i) => `session-person-${i}`);
    const own = await Promise.all(
      people.map((sub) =>
        world.provider.issueUserToken(sub, { audience: GATEWAY_AUDIENCE, scope: 'openid' }),
      ),
    );
    const order = [...people.keys(), ...people.keys(), ...people.keys()];
    const answers = await Promise.all(
      order.map((i) =>
        postJson(
          `${gw!.url}/api/read_whoami`,
          { note: `from ${i}` },
          { authorization: `Bearer ${own[i]}` },
        ),
      ),
    );
    for (const [n, res] of answers.entries()) {
      expect(res.status, res.text).toBe(200);
      // The upstream's answer names the session's person: the caller's own.
      expect(JSON.parse(res.text).result).toEqual({
        session: people[order[n]!],
        note: `from ${order[n]}`,
      });
    }
    // One session per person, each opened with that person's token; the calls that
    // arrived together waited for their person's one handshake.
    expect([...server.opened].sort()).toEqual([...people].sort());
    expect(server.calls).toHaveLength(order.length);
    for (const call of server.calls) expect(call.caller).toBe(call.session);
    // Nothing was sent on a session without its person's token, nor on another's.
    expect(server.refused.filter((r) => r.status === 403)).toEqual([]);
    expect(server.refused.filter((r) => r.method === 'tools/call')).toEqual([]);
  });

  it('calls a returning caller on the session their first call opened, not a new one', async () => {
    const token = await world.provider.issueUserToken('session-returning', {
      audience: GATEWAY_AUDIENCE,
      scope: 'openid',
    });
    const opened = server.opened.length;
    for (let i = 0; i < 3; i++) {
      const res = await postJson(
        `${gw!.url}/api/read_whoami`,
        { note: `visit ${i}` },
        { authorization: `Bearer ${token}` },
      );
      expect(res.status, res.text).toBe(200);
    }
    expect(server.opened.slice(opened)).toEqual(['session-returning']);
  });

  it('says at start-up that the server refuses a handshake with no token, not that it is down', () => {
    const logs = gw!.logs();
    expect(logs).toContain('refuses a handshake that carries no caller');
    expect(logs).not.toContain('is down at start-up');
    // The refused handshake carried no token, and the 401 was the only answer to it.
    expect(server.refused.filter((r) => r.status === 401).length).toBeGreaterThan(0);
  });

  it("ends each caller's session with that caller's token when the gateway stops", async () => {
    const people = new Set(server.opened);
    expect(people.size).toBe(6);
    await gw!.close();
    gw = undefined;
    expect(new Set(server.ended)).toEqual(people);
    expect(server.refused.filter((r) => r.method === 'DELETE')).toEqual([]);
  });
});
