/**
 * The identity chain of calls whose upstream obtains a token (docs/observability.md, "The
 * identity chain"): a real gateway in front of two APIs that verify every token, one
 * called with a token exchanged for the caller (`auth exchange`), one with the gateway's
 * own client-credentials token, and a real OAuth server that issues both
 * (test/helpers/upstream-identity-world.ts). The audit line and the span say what each
 * call was made as, a refusal before anything was sent included; neither carries a token.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { recordingTelemetry, type RecordingTelemetry } from '../helpers/recording-telemetry.js';
import {
  BILLING,
  CC_SECRET,
  startIdentityWorld,
  TICKETS,
  X_SECRET,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';

const API_KEY = 'chain-key-Qw3Er5Ty7Ui9';
const AUDIENCE = 'https://gateway.example/mcp';
const SUBJECT = 'person-dana-7731';

function spec(world: IdentityWorld): string {
  return `
wrap "identity-chain-tokens" version="1.0.0"
upstream "tickets" base-url="${world.tickets.url}" {
    auth exchange token-url="${world.tokenUrl}" client-id-env="X_ID" client-secret-env="X_SECRET" audience="${TICKETS}" scope="tickets.read"
}
upstream "billing" base-url="${world.billing.url}" {
    auth client-credentials token-url="${world.tokenUrl}" client-id-env="CC_ID" client-secret-env="CC_SECRET" audience="${BILLING}" scope="billing.read"
}
access {
    api-key env="CHAIN_KEYS" scopes="read"
    oauth issuer="${world.provider.issuer}" audience="${AUDIENCE}" jwks-uri="${world.provider.issuer}/jwks"
}
can get tickets-caller {
    describe "Who the tickets API saw."
    upstream "tickets"
    path "/whoami"
}
can get billing-caller {
    describe "Who the billing API saw."
    upstream "billing"
    path "/whoami"
}
`;
}

let world: IdentityWorld;
let telemetry: RecordingTelemetry;
let gw: TestGateway;

beforeAll(async () => {
  world = await startIdentityWorld();
  telemetry = recordingTelemetry();
  gw = await startGateway(spec(world), {
    env: { ...world.env, CHAIN_KEYS: API_KEY },
    telemetry,
  });
});

afterAll(async () => {
  await gw?.close();
  await world?.close();
});

beforeEach(() => {
  telemetry.spans.length = 0;
});

function auditLines(): Record<string, unknown>[] {
  return gw
    .logs()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.audit === 'tool_call');
}

async function lineOf(tool: string, authorization: string, status: number) {
  const before = auditLines().length;
  const res = await postJson(`${gw.url}/api/${tool}`, {}, { authorization });
  expect(res.status, res.text).toBe(status);
  const lines = auditLines().slice(before);
  expect(lines).toHaveLength(1);
  return { line: lines[0]!, res };
}

describe('the identity chain of a call with an obtained token', () => {
  it('names the caller, its OAuth client and exchange for a call made with a token exchanged for it', async () => {
    const own = await world.provider.issueUserToken(SUBJECT, {
      audience: AUDIENCE,
      scope: 'openid read',
      clientId: 'agent-host-app',
    });
    const { line, res } = await lineOf('get_tickets_caller', `Bearer ${own}`, 200);
    expect(res.text).toContain(SUBJECT);
    expect(line).toMatchObject({
      tool: 'get_tickets_caller',
      caller: `sub:${SUBJECT}`,
      client: 'agent-host-app',
      credential: 'exchange',
      outcome: 'ok',
    });
    const server = telemetry.one('POST /api/{tool}');
    expect(server.attributes).toMatchObject({
      'mcp_beaver.credential': 'exchange',
      'mcp_beaver.client': 'agent-host-app',
    });
    const client = telemetry.spans.find((s) => s.kind === 'client')!;
    expect(client.attributes).toMatchObject({ 'mcp_beaver.credential': 'exchange' });
    const spans = JSON.stringify(telemetry.spans);
    expect(spans).not.toContain(SUBJECT);
    expect(spans).not.toContain(own);
    expect(gw.logs()).not.toContain(own);
  });

  it('names exchange for an API key caller refused with IDENTITY_UNAVAILABLE before anything was sent, and the span the identity guard', async () => {
    const seen = world.tickets.authorizations.length;
    const { line } = await lineOf('get_tickets_caller', `Bearer ${API_KEY}`, 403);
    expect(line).toMatchObject({
      caller: 'api-key:CHAIN_KEYS#1',
      credential: 'exchange',
      outcome: 'IDENTITY_UNAVAILABLE',
    });
    expect(line).not.toHaveProperty('client');
    expect(world.tickets.authorizations.length).toBe(seen);
    const server = telemetry.one('POST /api/{tool}');
    expect(server.attributes).toMatchObject({
      'mcp_beaver.credential': 'exchange',
      'mcp_beaver.refused_by': 'identity',
      'error.type': 'IDENTITY_UNAVAILABLE',
    });
  });

  it("names client-credentials for a call made with the gateway's own token, whoever called", async () => {
    const { line, res } = await lineOf('get_billing_caller', `Bearer ${API_KEY}`, 200);
    expect(res.text).toContain('gateway-service');
    expect(line).toMatchObject({
      caller: 'api-key:CHAIN_KEYS#1',
      credential: 'client-credentials',
      outcome: 'ok',
    });
    const client = telemetry.spans.find((s) => s.kind === 'client')!;
    expect(client.attributes).toMatchObject({ 'mcp_beaver.credential': 'client-credentials' });
    const logs = gw.logs();
    for (const secret of [CC_SECRET, X_SECRET]) expect(logs).not.toContain(secret);
  });
});
