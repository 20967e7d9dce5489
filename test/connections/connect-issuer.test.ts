/**
 * `oauth-provider … { issuer }` and RFC 9207: the real provider names itself in `iss` on
 * its answer to the connect flow; an answer naming the declared issuer connects the
 * account, one naming another authorization server is refused and connects nothing, and
 * an `issuer` that is not an https URL is a spec error at its line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { formatDiagnostic } from '../../src/compiler/diagnostics.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  ALICE_KEY,
  BOB_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

const callWhoami = (gw: TestGateway, key: string) =>
  postJson(`${gw.url}/api/read_whoami`, {}, { authorization: `Bearer ${key}` });

async function connectLink(gw: TestGateway, key: string): Promise<string> {
  const res = await callWhoami(gw, key);
  expect(res.status, res.text).toBe(403);
  const body = res.json as { error: { details: { authorization: { url: string } } } };
  return body.error.details.authorization.url;
}

describe("a connect callback checked against the provider's declared issuer", () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    gw = await startGateway(world.spec('', `issuer "${world.provider.issuer}"`), {
      env: world.env,
    });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await world?.close();
  });

  it("connects the account when the answer's iss is the declared issuer", async () => {
    const link = await connectLink(gw, ALICE_KEY);
    const stopped = await connectInBrowser(world, link, ALICE_KEY, 'alice-at-tracker', true);
    expect(stopped.url.searchParams.get('iss')).toBe(world.provider.issuer);
    const done = await stopped.browser.go(stopped.url.href);
    expect(done.status).toBe(200);
    expect(done.body).toContain('is connected');
    const res = await callWhoami(gw, ALICE_KEY);
    expect(res.status, res.text).toBe(200);
  });

  it('refuses an answer naming another issuer, and connects nothing', async () => {
    const link = await connectLink(gw, BOB_KEY);
    const stopped = await connectInBrowser(world, link, BOB_KEY, 'bob-at-tracker', true);
    const mixed = new URL(stopped.url.href);
    mixed.searchParams.set('iss', 'https://attacker.example');
    const refused = await stopped.browser.go(mixed.href);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('another issuer');
    // Still not connected: the caller is asked to connect again.
    await connectLink(gw, BOB_KEY);
  });
});

describe('an oauth-provider issuer in the spec', () => {
  it('must be an https URL: the error names it and its line', () => {
    const result = compileSpecText(
      `wrap "w" version="1"
access token-key-env="K" {
    api-key env="A"
}
oauth-provider "tracker" {
    authorize-url "https://idp.example.com/auth"
    token-url "https://idp.example.com/token"
    client-id-env "ID"
    client-secret-env "SECRET"
    issuer "http://idp.example.com"
}
`,
      'spec.mcp.kdl',
    );
    const text = result.diagnostics.map(formatDiagnostic).join('\n');
    expect(text).toContain('spec.mcp.kdl:10:');
    expect(text).toContain('SPEC_OAUTH_URL');
    expect(text).toContain('issuer "http://idp.example.com" must be an https URL');
  });
});
