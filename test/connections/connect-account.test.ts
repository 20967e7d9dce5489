/**
 * `auth user` end to end (spec-language.md, "On whose behalf (upstream identity)"): a call
 * whose caller has not connected an account is answered AUTHORIZATION_REQUIRED with a
 * connect link and sends nothing; the link, opened as that caller, runs the provider's
 * code flow; the next call reaches the tracker API as the caller's own account, which
 * the API checked at the provider. Every part is real: oidc-provider, the API, the
 * gateway, a browser played by fetch, the official MCP SDK client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { callTool } from '../helpers/call-tool.js';
import { runCli } from '../helpers/run-cli.js';
import { META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { Browser } from '../helpers/oidc-provider.js';
import {
  ALICE_KEY,
  BOB_KEY,
  CAROL_KEY,
  connectInBrowser,
  startConnectionsWorld,
  type ConnectionsWorld,
} from '../helpers/connections-world.js';

interface Refusal {
  error: { code: string; message: string; details?: { authorization?: Record<string, string> } };
}

const callWhoami = (gw: TestGateway, key: string) =>
  postJson(`${gw.url}/api/read_whoami`, {}, { authorization: `Bearer ${key}` });

async function accountOf(gw: TestGateway, key: string): Promise<string> {
  const res = await callWhoami(gw, key);
  expect(res.status, res.text).toBe(200);
  return (res.json as { result: { account: string } }).result.account;
}

async function connectLink(gw: TestGateway, key: string): Promise<string> {
  const res = await callWhoami(gw, key);
  expect(res.status, res.text).toBe(403);
  const body = res.json as Refusal;
  expect(body.error.code).toBe('AUTHORIZATION_REQUIRED');
  return body.error.details!.authorization!.url!;
}

async function connections(gw: TestGateway, key: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${gw.url}/api/connections`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { connections: Record<string, unknown>[] }).connections;
}

/** The bearer tokens the tracker API received, as sent. */
const bearersSeen = (world: ConnectionsWorld): string[] =>
  world.api.requests.map((r) => String(r.headers.authorization ?? ''));

describe('a connected account (auth user)', () => {
  let world: ConnectionsWorld;
  let gw: TestGateway;

  beforeAll(async () => {
    world = await startConnectionsWorld();
    gw = await startGateway(world.spec(), { env: world.env });
    await world.provider.allowRedirect(`${gw.url}/connect/tracker/callback`);
  });
  afterAll(async () => {
    await gw?.close();
    await world?.close();
  });

  it('answers a caller with no connection AUTHORIZATION_REQUIRED naming provider, link and expiry, and sends nothing', async () => {
    const before = world.api.requests.length;
    const res = await callWhoami(gw, CAROL_KEY);
    expect(res.status).toBe(403);
    const { error } = res.json as Refusal;
    expect(error.code).toBe('AUTHORIZATION_REQUIRED');
    const auth = error.details!.authorization!;
    expect(auth.provider).toBe('tracker');
    expect(auth.url).toMatch(new RegExp(`^${gw.url}/connect/tracker/[A-Za-z0-9_-]+$`));
    expect(Date.parse(auth.expires_at!)).toBeGreaterThan(Date.now());
    expect(error.message).toContain(auth.url);
    expect(world.api.requests.length).toBe(before);
  });

  it.each(['modern', 'legacy'] as const)(
    'answers an MCP client (%s era) that declared no URL elicitation with an error result giving the code and the link',
    async (era) => {
      const before = world.api.requests.length;
      const result = await callTool(gw.url, 'read_whoami', {}, { era, key: CAROL_KEY });
      expect(result.isError).toBe(true);
      const text = result.content.map((c) => c.text).join('\n');
      expect(text).toContain('AUTHORIZATION_REQUIRED');
      expect(text).toMatch(new RegExp(`${gw.url}/connect/tracker/[A-Za-z0-9_-]+`));
      expect(world.api.requests.length).toBe(before);
    },
  );

  it('asks a 2026-07-28 MCP client that declared URL elicitation to open the connect link (input_required), and sends nothing', async () => {
    const before = world.api.requests.length;
    const res = await postJson(
      `${gw.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'read_whoami',
          arguments: {},
          _meta: { [META_VERSION]: MODERN, [META_CAPS]: { elicitation: { url: {} } } },
        },
      },
      {
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${CAROL_KEY}`,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'read_whoami',
      },
    );
    expect(res.status, res.text).toBe(200);
    const result = (res.json as { result: Record<string, unknown> }).result;
    expect(result.resultType).toBe('input_required');
    const ask = (
      result.inputRequests as Record<string, { method: string; params: Record<string, string> }>
    ).connect!;
    expect(ask.method).toBe('elicitation/create');
    expect(ask.params.mode).toBe('url');
    expect(ask.params.url).toMatch(new RegExp(`^${gw.url}/connect/tracker/[A-Za-z0-9_-]+$`));
    expect(world.api.requests.length).toBe(before);
  });

  it('connects the caller through the provider and then calls the tracker as the caller’s own account', async () => {
    const url = await connectLink(gw, ALICE_KEY);
    const done = await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
    expect(done.status).toBe(200);
    expect(done.body).toContain('is connected');
    expect(await accountOf(gw, ALICE_KEY)).toBe('alice-at-tracker');
    // Through the MCP surface too, in both eras.
    for (const era of ['modern', 'legacy'] as const) {
      const result = await callTool<{ result: { account: string } }>(
        gw.url,
        'read_whoami',
        {},
        { era, key: ALICE_KEY },
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.result.account).toBe('alice-at-tracker');
    }
  });

  it('refuses a connect link opened by any caller but the one it was made for, and connects nobody', async () => {
    const bobsLink = await connectLink(gw, BOB_KEY);
    const browser = new Browser();
    world.provider.signInAs('alice-at-tracker');
    const page = await browser.go(bobsLink, { method: 'POST', form: { key: ALICE_KEY } });
    expect(page.status).toBe(403);
    expect(page.body).toContain('made for another caller');
    // The browser never left for the provider.
    expect(browser.visited.every((u) => u.startsWith(gw.url))).toBe(true);
    await connectLink(gw, BOB_KEY);
  });

  it('refuses a connect form sent from another origin', async () => {
    const bobsLink = await connectLink(gw, BOB_KEY);
    const res = await fetch(bobsLink, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      },
      body: new URLSearchParams({ key: BOB_KEY }).toString(),
    });
    expect([400, 403]).toContain(res.status);
    expect(res.headers.get('location')).toBeNull();
  });

  it('refuses a link that is not the gateway’s, or that names another provider', async () => {
    const bobsLink = await connectLink(gw, BOB_KEY);
    const id = bobsLink.split('/').pop()!;
    const tampered = `${gw.url}/connect/tracker/${id.slice(0, -4)}AAAA`;
    expect((await new Browser().go(tampered)).status).toBe(400);
    expect((await new Browser().go(`${gw.url}/connect/other/${id}`)).status).toBe(400);
  });

  it('spends the provider’s answer once: a replayed callback connects nothing', async () => {
    const bobsLink = await connectLink(gw, BOB_KEY);
    const stopped = await connectInBrowser(world, bobsLink, BOB_KEY, 'bob-at-tracker', true);
    expect(stopped.stopped).toBe(true);
    const callback = stopped.url.href;
    expect(callback).toContain('state=');
    const first = await stopped.browser.go(callback);
    expect(first.status).toBe(200);
    expect(first.body).toContain('is connected');
    const replay = await new Browser().go(callback);
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('used already');
    expect(await accountOf(gw, BOB_KEY)).toBe('bob-at-tracker');
  });

  it('never uses one caller’s token for another under concurrent calls', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? ALICE_KEY : BOB_KEY));
    const accounts = await Promise.all(calls.map((key) => accountOf(gw, key)));
    accounts.forEach((account, i) =>
      expect(account).toBe(i % 2 === 0 ? 'alice-at-tracker' : 'bob-at-tracker'),
    );
  });

  it('lists the caller’s own connections without any token, and removes one on request', async () => {
    const listed = await connections(gw, ALICE_KEY);
    expect(listed).toEqual([
      {
        provider: 'tracker',
        connected: true,
        scopes: ['openid'],
        connected_at: expect.any(String),
        expires_at: expect.any(String),
      },
    ]);
    const text = JSON.stringify(listed);
    for (const bearer of bearersSeen(world)) expect(text).not.toContain(bearer.slice(7));
    const carol = await connections(gw, CAROL_KEY);
    expect(carol).toEqual([
      {
        provider: 'tracker',
        connected: false,
        connect_url: expect.stringMatching(`^${gw.url}/connect/tracker/`),
        expires_at: expect.any(String),
      },
    ]);
    const removed = await fetch(`${gw.url}/api/connections/tracker`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ removed: 'tracker' });
    // Revoked at the provider first (RFC 7009): the refresh token, as the gateway's client.
    const revoked = world.revocations.at(-1)!;
    expect(revoked.form.get('token_type_hint')).toBe('refresh_token');
    expect(revoked.form.get('token')).toMatch(/\S{10,}/);
    expect(revoked.authorization).toBe(
      `Basic ${Buffer.from(`${world.env.TRACKER_CLIENT_ID}:${world.env.TRACKER_CLIENT_SECRET}`).toString('base64')}`,
    );
    expect((await connections(gw, ALICE_KEY))[0]!.connected).toBe(false);
    await connectLink(gw, ALICE_KEY);
    // Bob's connection is his own, and stays.
    expect(await accountOf(gw, BOB_KEY)).toBe('bob-at-tracker');
    const again = await fetch(`${gw.url}/api/connections/tracker`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    expect(again.status).toBe(404);
  });

  it('refreshes a token near its expiry before using it', async () => {
    world.setAccessTokenTtl(30);
    try {
      const url = await connectLink(gw, ALICE_KEY);
      await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
      const before = world.refreshes();
      expect(await accountOf(gw, ALICE_KEY)).toBe('alice-at-tracker');
      expect(world.refreshes()).toBe(before + 1);
    } finally {
      world.setAccessTokenTtl(3600);
    }
  });

  it('refreshes once for many concurrent calls near expiry, the rotated refresh token spent once', async () => {
    world.setAccessTokenTtl(30);
    try {
      await fetch(`${gw.url}/api/connections/tracker`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ALICE_KEY}` },
      });
      const url = await connectLink(gw, ALICE_KEY);
      await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
      world.setAccessTokenTtl(3600);
      const before = world.refreshes();
      const accounts = await Promise.all(
        Array.from({ length: 12 }, () => accountOf(gw, ALICE_KEY)),
      );
      expect(new Set(accounts)).toEqual(new Set(['alice-at-tracker']));
      expect(world.refreshes()).toBe(before + 1);
    } finally {
      world.setAccessTokenTtl(3600);
    }
  });

  it('hides the connected account’s token when the upstream echoes it back', async () => {
    world.api.handle((req, res) => {
      res.setHeader('content-type', 'application/json');
      const bearer = String(req.headers.authorization ?? '');
      res.end(
        JSON.stringify({
          echoed: bearer,
          token: bearer.slice(7),
          b64: Buffer.from(bearer.slice(7)).toString('base64'),
        }),
      );
    });
    try {
      const res = await callWhoami(gw, ALICE_KEY);
      expect(res.status, res.text).toBe(200);
      const token = bearersSeen(world).at(-1)!.slice(7);
      expect(token.length).toBeGreaterThan(10);
      expect(res.text).not.toContain(token);
      expect(res.text).not.toContain(Buffer.from(token).toString('base64'));
      expect(res.text).toContain('[REDACTED]');
    } finally {
      world.api.handle(async (req, res) => {
        const who = await fetch(`${world.provider.issuer}/me`, {
          headers: { authorization: String(req.headers.authorization ?? '') },
        });
        res.setHeader('content-type', 'application/json');
        if (who.status !== 200) {
          res.statusCode = 401;
          res.end('{"error":"unknown token"}');
          return;
        }
        res.end(JSON.stringify({ account: ((await who.json()) as { sub: string }).sub }));
      });
    }
  });

  it('meets an upstream 401 with one refresh and one retry', async () => {
    // A call first, so a token left near its expiry by the test before is renewed now.
    expect(await accountOf(gw, ALICE_KEY)).toBe('alice-at-tracker');
    const handler = world.api;
    let refusedOnce = false;
    const original = handler.requests.length;
    const before = world.refreshes();
    handler.handle(async (req, res) => {
      if (!refusedOnce) {
        refusedOnce = true;
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        res.end('{"error":"token revoked"}');
        return;
      }
      const who = await fetch(`${world.provider.issuer}/me`, {
        headers: { authorization: String(req.headers.authorization ?? '') },
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ account: ((await who.json()) as { sub: string }).sub }));
    });
    expect(await accountOf(gw, ALICE_KEY)).toBe('alice-at-tracker');
    expect(world.refreshes()).toBe(before + 1);
    const sent = bearersSeen(world).slice(original);
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toBe(sent[1]);
  });

  it('removes a connection whose refresh the provider refuses, and asks the caller to connect again', async () => {
    world.setAccessTokenTtl(30);
    try {
      await fetch(`${gw.url}/api/connections/tracker`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ALICE_KEY}` },
      });
      const url = await connectLink(gw, ALICE_KEY);
      await connectInBrowser(world, url, ALICE_KEY, 'alice-at-tracker');
      world.refuseRefreshes(true);
      const before = world.api.requests.length;
      const res = await callWhoami(gw, ALICE_KEY);
      expect(res.status).toBe(403);
      expect((res.json as Refusal).error.code).toBe('AUTHORIZATION_REQUIRED');
      expect(world.api.requests.length).toBe(before);
      expect((await connections(gw, ALICE_KEY))[0]!.connected).toBe(false);
    } finally {
      world.refuseRefreshes(false);
      world.setAccessTokenTtl(3600);
    }
  });

  it('shows the caller’s own connections in `mcp-beaver connections`, and disconnects one', async () => {
    const cli = (args: string[], keyEnv: string) =>
      runCli(['connections', ...args, '--bearer-env', keyEnv, '--timeout', '30s'], {
        env: { BOB_KEY, CAROL_KEY },
      });
    const bob = await cli([`${gw.url}/mcp`], 'BOB_KEY');
    expect(bob.code, bob.stderr).toBe(0);
    expect(bob.stdout).toMatch(/^tracker: connected since \S+, scopes openid, token until \S+\n$/);
    const carol = await cli([gw.url], 'CAROL_KEY');
    expect(carol.code).toBe(0);
    expect(carol.stdout).toContain('tracker: not connected');
    expect(carol.stdout).toContain(`${gw.url}/connect/tracker/`);
    const off = await cli([gw.url, 'disconnect', 'tracker'], 'BOB_KEY');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('Disconnected tracker');
    const again = await cli([gw.url, 'disconnect', 'tracker'], 'BOB_KEY');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('NOT_FOUND');
    await connectLink(gw, BOB_KEY);
  });

  it('never sends a caller’s own key upstream, and writes no token to its logs', async () => {
    for (const r of world.api.requests) {
      const headers = JSON.stringify(r.headers);
      for (const key of [ALICE_KEY, BOB_KEY, CAROL_KEY]) expect(headers).not.toContain(key);
    }
    const logs = gw.logs();
    for (const bearer of bearersSeen(world)) expect(logs).not.toContain(bearer.slice(7));
    expect(logs).not.toContain(world.env.TRACKER_CLIENT_SECRET);
    expect(logs).toContain('"audit":"connection"');
  });
});
