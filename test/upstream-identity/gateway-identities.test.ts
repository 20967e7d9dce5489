/**
 * The two token kinds through a whole gateway (REST and MCP), against a real OAuth server
 * and APIs that verify every token: `auth exchange` calls the tickets API as the caller
 * whose OAuth token the gateway verified, refuses an API-key caller with
 * IDENTITY_UNAVAILABLE on both surfaces while the API hears nothing, and never forwards the
 * caller's own token; `auth client-credentials` calls the billing API as the gateway with
 * one token for many concurrent calls. No obtained token reaches a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { TOKEN_EXCHANGE } from '../helpers/oidc-provider.js';
import {
  BILLING,
  startIdentityWorld,
  TICKETS,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';

const GATEWAY_AUDIENCE = 'https://gateway.example/mcp';
const KEY = 'desk-api-key-0c4b8e2f9a7d1365';

let world: IdentityWorld;
let gw: TestGateway;

function spec(w: IdentityWorld): string {
  return `wrap "acting" version="1"
upstream "tickets" base-url="${w.tickets.url}" {
    auth exchange token-url="${w.tokenUrl}" client-id-env="X_ID" client-secret-env="X_SECRET" audience="${TICKETS}" scope="tickets.read"
    // Deadlines are not under test: a loaded machine must not turn these calls into 504s.
    timeout "30s"
}
upstream "billing" base-url="${w.billing.url}" {
    auth client-credentials token-url="${w.tokenUrl}" client-id-env="CC_ID" client-secret-env="CC_SECRET" audience="${BILLING}" scope="billing.read"
    timeout "30s"
}
access {
    api-key env="DESK_KEYS" scopes="desk"
    oauth issuer="${w.provider.issuer}" audience="${GATEWAY_AUDIENCE}" jwks-uri="${w.provider.issuer}/jwks"
}
can get ticket_caller {
    describe "Who the tickets API sees."
    upstream "tickets"
    path "/whoami"
    scope "desk"
}
can get billing_caller {
    describe "Who the billing API sees."
    upstream "billing"
    path "/whoami"
    scope "desk"
}
`;
}

beforeAll(async () => {
  world = await startIdentityWorld();
  gw = await startGateway(spec(world), { env: { ...world.env, DESK_KEYS: KEY } });
});

afterAll(async () => {
  await gw?.close();
  await world?.close();
});

const userToken = (sub: string): Promise<string> =>
  world.provider.issueUserToken(sub, { audience: GATEWAY_AUDIENCE, scope: 'desk' });

const rest = (tool: string, bearer: string) =>
  postJson(`${gw.url}/api/${tool}`, {}, { authorization: `Bearer ${bearer}` });

describe('auth exchange through the gateway', () => {
  it('calls the API as the OAuth caller, with a token for its audience, never the caller’s own', async () => {
    const own = await userToken('alice');
    const seen = world.tickets.authorizations.length;
    const res = await rest('get_ticket_caller', own);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('"sub":"alice"');
    expect(res.text).toContain(`"aud":"${TICKETS}"`);
    const sent = world.tickets.authorizations.slice(seen);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toContain(own);
  });

  it('refuses an API-key caller over REST with 403 IDENTITY_UNAVAILABLE, and the API hears nothing', async () => {
    const seen = world.tickets.authorizations.length;
    const exchanges = world.provider.tokenRequests.filter((g) => g === TOKEN_EXCHANGE).length;
    const res = await rest('get_ticket_caller', KEY);
    expect(res.status).toBe(403);
    expect(res.text).toContain('IDENTITY_UNAVAILABLE');
    expect(world.tickets.authorizations.length).toBe(seen);
    expect(world.provider.tokenRequests.filter((g) => g === TOKEN_EXCHANGE).length).toBe(exchanges);
  });

  it('refuses an API-key caller over MCP with an isError result naming IDENTITY_UNAVAILABLE', async () => {
    const seen = world.tickets.authorizations.length;
    const result = await callTool(gw.url, 'get_ticket_caller', {}, { key: KEY });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('IDENTITY_UNAVAILABLE');
    expect(world.tickets.authorizations.length).toBe(seen);
  });

  it('gives each of many concurrent OAuth callers the API answer for its own subject', async () => {
    const people = Array.from({ length: 6 }, (_, i) => `member-${i}`);
    const tokens = await Promise.all(people.map(userToken));
    const order = [...tokens, ...tokens, ...tokens];
    const answers = await Promise.all(order.map((t) => rest('get_ticket_caller', t)));
    answers.forEach((res, i) => {
      expect(res.status, res.text).toBe(200);
      expect(res.text).toContain(`"sub":"${people[i % people.length]}"`);
    });
  });
});

describe('auth client-credentials through the gateway', () => {
  it('calls the API as the gateway client, one token request for twenty concurrent calls', async () => {
    const before = world.provider.tokenRequests.filter((g) => g === 'client_credentials').length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => rest('get_billing_caller', KEY)),
    );
    for (const res of answers) {
      expect(res.status, res.text).toBe(200);
      expect(res.text).toContain('"client_id":"gateway-service"');
      expect(res.text).toContain('"scope":"billing.read"');
    }
    const after = world.provider.tokenRequests.filter((g) => g === 'client_credentials').length;
    expect(after - before).toBe(1);
  });

  it('writes no obtained token and no client secret to a log line', () => {
    const logs = gw.logs();
    for (const a of [...world.tickets.authorizations, ...world.billing.authorizations])
      if (a) expect(logs).not.toContain(a.slice('Bearer '.length));
    expect(logs).not.toContain(world.env.CC_SECRET);
    expect(logs).not.toContain(world.env.X_SECRET);
  });
});
