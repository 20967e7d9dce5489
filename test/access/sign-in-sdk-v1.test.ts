/**
 * The gateway as its clients' authorization server (spec-language.md, "Sign-in for MCP
 * clients"), end to end with the official SDK
 * v1 OAuth client: discovery from the gateway's RFC 9728 and RFC 8414 metadata, dynamic
 * registration, the code flow through the gateway's consent page and a real OpenID
 * provider, a tool call with the token, then a refresh — and the old refresh token
 * refused when replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Browser } from '../helpers/oidc-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import {
  approveInBrowser,
  CLIENT_REDIRECT,
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

function tokenForm(form: Record<string, string>) {
  return fetch(`${gw.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

describe('SDK v1 signing in through the gateway', () => {
  const client = new MemoryClientProvider();
  const serverUrl = () => `${gw.url}/mcp`;
  let firstRefresh = '';

  it('discovers the gateway as authorization server, registers and is sent to its consent page', async () => {
    expect(await auth(client, { serverUrl: serverUrl() })).toBe('REDIRECT');
    const url = client.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${gw.url}/authorize`);
    expect(url.searchParams.get('resource')).toBe(`${gw.url}/mcp`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(client.info?.client_id).toEqual(expect.any(String));
    const page = await new Browser().go(url.href);
    expect(page.status).toBe(200);
    expect(page.body).toContain('SDK v1 test client');
    expect(page.body).toContain('127.0.0.1:1');
  });

  it('gets a code at its redirect URI after the person approves and signs in at the provider', async () => {
    const browser = new Browser();
    const back = await approveInBrowser(browser, world.provider, client.authorizationUrl!.href);
    expect(back.href.startsWith(CLIENT_REDIRECT)).toBe(true);
    expect(back.searchParams.get('state')).toBe(client.sentState);
    expect(back.searchParams.get('iss')).toBe(gw.url);
    // The browser went through the provider, and came back through the gateway's callback.
    expect(browser.visited.some((u) => u.startsWith(world.provider.issuer))).toBe(true);
    expect(browser.visited.some((u) => u.startsWith(`${gw.url}/callback`))).toBe(true);
    const code = back.searchParams.get('code')!;
    expect(await auth(client, { serverUrl: serverUrl(), authorizationCode: code })).toBe(
      'AUTHORIZED',
    );
    expect(client.saved?.token_type).toBe('Bearer');
    expect(client.saved?.scope?.split(' ').sort()).toEqual(['billing:read', 'tickets:read']);
    firstRefresh = client.saved!.refresh_token!;
    // The access token is the gateway's own: EdDSA under its published key, for /mcp.
    const token = client.saved!.access_token;
    const header = decodeProtectedHeader(token);
    const jwks = (await (await fetch(`${gw.url}/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(header).toMatchObject({ alg: 'EdDSA', kid: jwks.keys[0]!.kid });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: gw.url,
      aud: `${gw.url}/mcp`,
      sub: 'alice',
      client_id: client.info!.client_id,
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(String(claims.scope).split(' ').sort()).toEqual(['billing:read', 'tickets:read']);
    // The same code again is refused: codes are single use.
    const replay = await tokenForm({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: client.info!.client_id,
      code_verifier: client.verifier,
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'code was used already',
    });
  });

  it('calls a tool with the token the gateway issued', async () => {
    const mcp = new Client({ name: 'sdk-v1-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(serverUrl()), { authProvider: client }),
    );
    try {
      const result = await mcp.callTool({ name: 'list_tickets', arguments: {} });
      expect(result.isError).toBeFalsy();
      const listed = await mcp.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('get_invoice');
    } finally {
      await mcp.close();
    }
    expect(gw.logs()).toContain('"audit":"sign_in"');
    expect(gw.logs()).toContain('"sub":"alice"');
  });

  it('refreshes, and the refresh token it spent is refused when replayed', async () => {
    const before = client.saved!.access_token;
    expect(await auth(client, { serverUrl: serverUrl() })).toBe('AUTHORIZED');
    expect(client.saved!.access_token).not.toBe(before);
    expect(client.saved!.refresh_token).not.toBe(firstRefresh);
    const replay = await tokenForm({
      grant_type: 'refresh_token',
      refresh_token: firstRefresh,
      client_id: client.info!.client_id,
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'refresh_token was used already',
    });
  });

  it('writes neither the tokens nor the secrets into the log', () => {
    const logs = gw.logs();
    expect(logs).not.toContain(client.saved!.access_token);
    expect(logs).not.toContain(client.saved!.refresh_token!);
    expect(logs).not.toContain(firstRefresh);
    expect(logs).not.toContain(world.env.IDP_CLIENT_SECRET);
    expect(logs).not.toContain(world.env.GATEWAY_TOKEN_KEY);
  });
});

describe('SDK v1 transport starting from a 401, as a desktop client does', () => {
  it('follows the challenge to the gateway, finishes with the code and calls a tool', async () => {
    const client = new MemoryClientProvider('SDK v1 transport client');
    const url = new URL(`${gw.url}/mcp/billing`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: client });
    const mcp = new Client({ name: 'sdk-v1-transport', version: '1.0.0' });
    // No token yet: the 401's resource_metadata leads the SDK to the gateway's sign-in.
    await expect(mcp.connect(first)).rejects.toThrow(/Unauthorized/);
    expect(client.authorizationUrl?.searchParams.get('resource')).toBe(`${gw.url}/mcp/billing`);
    const back = await approveInBrowser(
      new Browser(),
      world.provider,
      client.authorizationUrl!.href,
    );
    await first.finishAuth(back.searchParams.get('code')!);
    const again = new Client({ name: 'sdk-v1-transport', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(url, { authProvider: client }));
    try {
      const listed = await again.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(['get_invoice']);
      const result = await again.callTool({ name: 'get_invoice', arguments: { id: 7 } });
      expect(result.isError).toBeFalsy();
    } finally {
      await again.close();
    }
  });
});
