/**
 * The browser side of sign-in (spec-language.md, "Sign-in for MCP clients"): `/signin`
 * signs a browser in to the gateway's own pages through the provider and returns to a path
 * of the gateway only; `/signout` ends it; registration refuses redirect URIs that would
 * let a code leave for an attacker; every sign-in and refusal is an audit line naming the
 * person and never a token; and a gateway without `sign-in` serves none of these routes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/oidc-provider.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { toolsetsSpec, KEYS_ENV, API_KEYS } from '../helpers/toolsets-spec.js';
import {
  signInRaw,
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

describe('a page sign-in', () => {
  it('signs the browser in at the provider and returns to the gateway path it was asked for', async () => {
    const browser = new Browser();
    world.provider.signInAs('alice');
    const done = await browser.go(`${gw.url}/signin?return=/approvals?tab=mine`, {
      stopAt: (u) => u.origin === gw.url && u.pathname === '/approvals',
    });
    expect(done.stopped).toBe(true);
    expect(done.url.href).toBe(`${gw.url}/approvals?tab=mine`);
    expect(browser.cookie('127.0.0.1', 'mcp_beaver_session')).toEqual(expect.any(String));
    expect(gw.logs()).toMatch(/"audit":"sign_in","event":"page_sign_in","sub":"alice"/);
  });

  it.each([['//evil.example/x'], ['https://evil.example/'], ['/\\evil.example'], ['approvals']])(
    'refuses to return to %s, which is not a path of the gateway',
    async (target) => {
      const res = await fetch(`${gw.url}/signin?return=${encodeURIComponent(target)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('return must be a path of this gateway');
    },
  );

  it('signs the browser out', async () => {
    const browser = new Browser();
    world.provider.signInAs('bob');
    await browser.go(`${gw.url}/signin?return=/approvals`, {
      stopAt: (u) => u.origin === gw.url && u.pathname === '/approvals',
    });
    expect(browser.cookie('127.0.0.1', 'mcp_beaver_session')).toBeDefined();
    const out = await browser.go(`${gw.url}/signout`, { method: 'POST', form: {} });
    expect(out.status).toBe(200);
    expect(browser.cookie('127.0.0.1', 'mcp_beaver_session')).toBeUndefined();
  });
});

describe('registration', () => {
  const register = async (body: unknown) => {
    const res = await fetch(`${gw.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  it('answers 201 with a public client and the redirect URIs it keeps', async () => {
    const res = await register({
      client_name: 'Desk',
      redirect_uris: ['http://localhost:3000/cb', 'https://app.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      client_name: 'Desk',
      redirect_uris: ['http://localhost:3000/cb', 'https://app.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.json.client_secret).toBeUndefined();
  });

  it.each([
    [{ redirect_uris: [] }, 'redirect_uris is required: a non-empty array of URLs'],
    [{}, 'redirect_uris is required: a non-empty array of URLs'],
    [
      { redirect_uris: ['http://app.example/cb'] },
      'redirect_uris[0] must be https, or http on a loopback host',
    ],
    [
      { redirect_uris: ['https://app.example/cb#frag'] },
      'redirect_uris[0] must not contain a fragment',
    ],
    [
      { redirect_uris: ['javascript:alert(1)'] },
      'redirect_uris[0] must not use the javascript: scheme',
    ],
    [
      { redirect_uris: [`https://app.example/${'a'.repeat(520)}`] },
      'redirect_uris[0] must be at most 512 characters',
    ],
    [
      { redirect_uris: Array.from({ length: 6 }, (_, i) => `https://app.example/${i}`) },
      'redirect_uris holds more than 5 URLs',
    ],
  ])('refuses %j', async (body, description) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid_redirect_uri', error_description: description });
  });
});

describe('the consent page', () => {
  it("shows the client's name as text, never as markup, and cannot be framed", async () => {
    const reg = await fetch(`${gw.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: '<img src=x onerror=alert(1)>',
        redirect_uris: ['http://127.0.0.1:9/cb'],
      }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const res = await fetch(
      `${gw.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id,
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
      })}`,
    );
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('audit lines', () => {
  it('record the sign-in and the token issue with subject and client, and no token', async () => {
    const { tokens } = await signInRaw(gw, world.provider, { as: 'bob', exchangeAt: gw.url });
    const lines = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('"audit":"sign_in"'));
    expect(lines.some((l) => /"event":"sign_in","sub":"bob","client":"registered:/.test(l))).toBe(
      true,
    );
    expect(lines.some((l) => /"event":"token_issued","sub":"bob"/.test(l))).toBe(true);
    expect(gw.logs()).not.toContain(tokens!.access_token);
    expect(gw.logs()).not.toContain(tokens!.refresh_token);
  });
});

describe('a gateway without sign-in', () => {
  let plain: TestGateway;
  beforeAll(async () => {
    plain = await startGateway(toolsetsSpec({ upstream: world.upstream.url }), { env: KEYS_ENV });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it.each([
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/jwks.json'],
    ['GET', '/authorize'],
    ['GET', '/callback'],
    ['GET', '/signin'],
    ['POST', '/token'],
    ['POST', '/register'],
  ])('answers 404 at %s %s', async (method, path) => {
    const res = await fetch(`${plain.url}${path}`, { method });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('a reload that drops sign-in', () => {
  let dir: string;
  let reloaded: TestGateway;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'beaver-sign-in-reload-'));
    const file = join(dir, 'sign-in.mcp.kdl');
    writeFileSync(file, world.spec);
    reloaded = await startGateway(world.spec, {
      specFile: file,
      env: { ...world.env, ...KEYS_ENV },
    });
    await world.provider.allowRedirect(`${reloaded.url}/callback`);
  });
  afterAll(async () => {
    await reloaded?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("closes the authorization server's routes and refuses the tokens it issued", async () => {
    const toolsList = (token: string) =>
      fetch(`${reloaded.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    const { tokens } = await signInRaw(reloaded, world.provider, { exchangeAt: reloaded.url });
    expect((await toolsList(tokens!.access_token)).status).toBe(200);
    writeFileSync(
      join(dir, 'sign-in.mcp.kdl'),
      toolsetsSpec({ upstream: world.upstream.url, access: API_KEYS }),
    );
    expect(await reloaded.reload()).toMatchObject({ ok: true });
    expect((await fetch(`${reloaded.url}/.well-known/oauth-authorization-server`)).status).toBe(
      404,
    );
    expect((await fetch(`${reloaded.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(
      404,
    );
    expect((await toolsList(tokens!.access_token)).status).toBe(401);
  });
});

describe('a reload that adds or changes sign-in', () => {
  it('is refused, naming the restart it needs, and the last good spec keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaver-sign-in-add-'));
    const file = join(dir, 'add.mcp.kdl');
    const plainSpec = toolsetsSpec({ upstream: world.upstream.url, access: API_KEYS });
    writeFileSync(file, plainSpec);
    const g = await startGateway(plainSpec, { specFile: file, env: { ...world.env, ...KEYS_ENV } });
    try {
      writeFileSync(file, world.spec);
      expect(await g.reload()).toEqual({
        ok: false,
        reason: expect.stringContaining('access sign-in was added'),
      });
      expect((await fetch(`${g.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    } finally {
      await g.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const changedDir = mkdtempSync(join(tmpdir(), 'beaver-sign-in-change-'));
    const changedFile = join(changedDir, 'change.mcp.kdl');
    writeFileSync(changedFile, world.spec);
    const h = await startGateway(world.spec, { specFile: changedFile, env: world.env });
    try {
      // The same sign-in with another describe reloads as any spec does.
      writeFileSync(changedFile, world.spec.replace('Helpdesk and billing', 'Helpdesk, billing'));
      expect(await h.reload()).toMatchObject({ ok: true });
      writeFileSync(
        changedFile,
        world.spec.replace('grant-scopes from-claim="roles"', 'grant-scopes from-claim="groups"'),
      );
      expect(await h.reload()).toEqual({
        ok: false,
        reason: expect.stringContaining('access sign-in or token-key-env changed'),
      });
    } finally {
      await h.close();
      rmSync(changedDir, { recursive: true, force: true });
    }
  });
});
