/**
 * The gateway as its clients' authorization server (spec-language.md, "Sign-in for MCP
 * clients") with the official SDK v2 client
 * (@modelcontextprotocol/client): its `auth()` discovers the gateway, registers, runs the
 * code flow while the test plays the browser, and its transport calls tools at a toolset
 * URL with the token; a refresh rotates the refresh token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  Client,
  StreamableHTTPClientTransport,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { Browser } from '../helpers/oidc-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import {
  approveInBrowser,
  MemoryClientProvider,
  startSignInGateway,
  startSignInWorld,
  type SignInWorld,
} from '../helpers/sign-in-gateway.js';

let world: SignInWorld;
let gw: TestGateway;

beforeAll(async () => {
  world = await startSignInWorld();
  gw = await startSignInGateway(world);
});

afterAll(async () => {
  await gw?.close();
  await world?.close();
});

describe('SDK v2 signing in through the gateway at a toolset URL', () => {
  const memory = new MemoryClientProvider('SDK v2 test client');
  // The same calls as v1's provider; v2 names its stored types differently.
  const client = memory as unknown as OAuthClientProvider;
  const serverUrl = () => `${gw.url}/mcp/triage`;

  it('completes discovery, registration and the code flow for the toolset resource', async () => {
    expect(await auth(client, { serverUrl: serverUrl() })).toBe('REDIRECT');
    const url = memory.authorizationUrl!;
    expect(url.searchParams.get('resource')).toBe(`${gw.url}/mcp/triage`);
    const back = await approveInBrowser(new Browser(), world.provider, url.href, 'bob');
    expect(back.searchParams.get('state')).toBe(memory.sentState);
    const code = back.searchParams.get('code')!;
    // RFC 9207: v2 checks the `iss` of the answer against the server it discovered.
    expect(back.searchParams.get('iss')).toBe(gw.url);
    const iss = back.searchParams.get('iss')!;
    expect(await auth(client, { serverUrl: serverUrl(), authorizationCode: code, iss })).toBe(
      'AUTHORIZED',
    );
    // Bob holds tickets:read only: the billing scope asked for is not granted.
    expect(memory.saved?.scope).toBe('tickets:read');
  });

  it('calls a tool of the toolset with the token, and sees only what its scopes allow', async () => {
    const mcp = new Client({ name: 'sdk-v2-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(serverUrl()), { authProvider: client }),
    );
    try {
      const listed = await mcp.listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(['get_ticket', 'list_tickets']);
      const result = await mcp.callTool({ name: 'list_tickets', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
  });

  it('refreshes with a new refresh token', async () => {
    const before = memory.saved!.refresh_token;
    expect(await auth(client, { serverUrl: serverUrl() })).toBe('AUTHORIZED');
    expect(memory.saved!.refresh_token).not.toBe(before);
    expect(memory.saved!.access_token).toEqual(expect.any(String));
  });
});
