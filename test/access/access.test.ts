/**
 * Inbound access end to end (spec-language.md "Access", protocol.md "Authorization",
 * security.md "Inbound tokens"): JWTs checked against a real JWKS server, API keys,
 * per-scope tool lists through the official SDK v2 client, RFC 9728 metadata,
 * `from-claim` binding, and the CLI's refusal to bind beyond loopback without access.
 * Every refusal asserts the status, the challenge, and that the upstream saw nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import {
  generateSigningKeys,
  hmacToken,
  nowSeconds,
  signToken,
  startJwks,
  unsignedToken,
  type JwksServer,
  type SigningKeys,
} from '../helpers/jwks.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { MODERN, LEGACY, META_VERSION, META_CAPS } from '../helpers/mcp-wire.js';
import { issueCommentGrant, listIssuesGrant, specHead } from '../helpers/spec-fixtures.js';

const UPSTREAM_TOKEN = 'upstream-credential-7f3a9c';
const READ_KEY_1 = 'read-key-one-4b1d9e2f';
const READ_KEY_2 = 'read-key-two-8c6a0f3e';
const ADMIN_KEY = 'admin-key-5e7b2a9d1c';
const WRONG_KEY = 'wrong-key-0d9c8b7a6f';
const KEY_ENV = {
  ISSUES_TOKEN: UPSTREAM_TOKEN,
  KEYS_READ: `${READ_KEY_1},${READ_KEY_2}`,
  KEYS_ADMIN: ADMIN_KEY,
};

const ISSUES_GRANTS = `
${listIssuesGrant({ scopes: ['issues:read'] })}
${issueCommentGrant(['issues:read', 'issues:write'])}
`;

/** API keys only (no oauth): the brief's access block, plus a grant without scope. */
function keysSpec(upstream: string): string {
  return `
${specHead('access-keys', `${upstream}/api`, { bearerEnv: 'ISSUES_TOKEN' })}
access {
    api-key env="KEYS_READ" scopes="issues:read"
    api-key env="KEYS_ADMIN" scopes="issues:read issues:write"
}
${ISSUES_GRANTS}
can get rate-limit {
    describe "The caller's rate limit."
    path "/rate_limit"
}
`;
}

/** OAuth and API keys together, with a grant whose `owner` comes from the token. */
function oauthSpec(upstream: string, jwks: { url: string; issuer: string; audience: string }) {
  return `
wrap "access-oauth" version="1.0.0" {
    title "Access (OAuth)"
}
base-url "${upstream}/api"
auth bearer env="ISSUES_TOKEN"
access {
    api-key env="KEYS_READ" scopes="issues:read"
    api-key env="KEYS_ADMIN" scopes="issues:read issues:write"
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
}
${ISSUES_GRANTS}
can list org-repos {
    describe "Repositories of the caller's organisation."
    path "/org-repos"
    query {
        owner "string" from-claim="org"
        per_page "integer" min=1 max=100
    }
    scope "issues:read"
}
`;
}

const GOOD_ARGS = { owner: 'acme', repo: 'rocket' };

let upstream: Upstream;
let keys: SigningKeys;
let jwks: JwksServer;
let gwOAuth: TestGateway;
let gwKeys: TestGateway;
/** Every bearer credential a test sent, for the log check at the end. */
const sentCredentials = new Set<string>();

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.path, query: req.query }));
  });
  keys = await generateSigningKeys();
  jwks = await startJwks({ keys });
  gwOAuth = await startGateway(oauthSpec(upstream.url, jwks), { env: KEY_ENV });
  gwKeys = await startGateway(keysSpec(upstream.url), { env: KEY_ENV });
});

afterAll(async () => {
  await gwOAuth?.close();
  await gwKeys?.close();
  await jwks?.close();
  await upstream?.close();
});

// ---------------------------------------------------------------------------------
// Raw HTTP on both surfaces

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

interface SendOptions {
  readonly extraHeaders?: Record<string, string>;
  /** Appended to the path, e.g. `?access_token=...`. */
  readonly query?: string;
}

type Surface = (
  gw: TestGateway,
  token: string | undefined,
  tool: string,
  args: Record<string, unknown>,
  opts?: SendOptions,
) => Promise<Answer>;

function bearer(token: string | undefined): Record<string, string> {
  if (token === undefined) return {};
  sentCredentials.add(token);
  return { authorization: `Bearer ${token}` };
}

function modernBody(method: string, params: Record<string, unknown>, id = 1): unknown {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } },
  };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name !== undefined && { 'mcp-name': name }),
  };
}

const LEGACY_HEADERS = {
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LEGACY,
};

const viaRest: Surface = (gw, token, tool, args, o = {}) =>
  postJson(`${gw.url}/api/${tool}${o.query ?? ''}`, args, {
    ...bearer(token),
    ...o.extraHeaders,
  });

const viaMcpModern: Surface = (gw, token, tool, args, o = {}) =>
  postJson(
    `${gw.url}/mcp${o.query ?? ''}`,
    modernBody('tools/call', { name: tool, arguments: args }),
    { ...modernHeaders('tools/call', tool), ...bearer(token), ...o.extraHeaders },
  );

const viaMcpLegacy: Surface = (gw, token, tool, args, o = {}) =>
  postJson(
    `${gw.url}/mcp${o.query ?? ''}`,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
    { ...LEGACY_HEADERS, ...bearer(token), ...o.extraHeaders },
  );

const SURFACES: [string, Surface][] = [
  ['POST /api', viaRest],
  ['/mcp tools/call (2026-07-28 body)', viaMcpModern],
  ['/mcp tools/call (2025-11-25 body)', viaMcpLegacy],
];

/** Runs `fn` and asserts the upstream saw exactly `expected` new requests meanwhile. */
async function upstreamDelta<T>(expected: number, fn: () => Promise<T>): Promise<T> {
  const before = upstream.requests.length;
  const out = await fn();
  expect(upstream.requests.length - before).toBe(expected);
  return out;
}

function metadataUrl(gw: TestGateway): string {
  return `${gw.url}/.well-known/oauth-protected-resource/mcp`;
}

/** 401 with a Bearer challenge pointing at the RFC 9728 metadata of this gateway. */
function expectUnauthorized(gw: TestGateway, r: Answer, error: string | undefined): void {
  expect(r.status).toBe(401);
  const challenge = r.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain(`resource_metadata="${metadataUrl(gw)}"`);
  if (error === undefined) expect(challenge).not.toContain('error=');
  else expect(challenge).toContain(`error="${error}"`);
  // Neither surface answers a refused call with a result.
  const body = r.json as { error?: unknown; result?: unknown };
  expect(body.error).toBeDefined();
  expect(body.result).toBeUndefined();
}

interface ToolResult {
  content: { type: string; text: string }[];
  isError: boolean;
}

function toolResult(r: Answer): ToolResult {
  return (r.json as { result: ToolResult }).result;
}

// ---------------------------------------------------------------------------------

describe('OAuth bearer tokens', () => {
  const otherKeysPromise = generateSigningKeys();

  const rejected: [string, () => Promise<string>][] = [
    [
      'an expired token',
      () =>
        jwks.sign({
          claims: { scope: 'issues:read', iat: nowSeconds() - 900, exp: nowSeconds() - 120 },
        }),
    ],
    [
      'a token whose nbf is beyond the clock skew',
      () =>
        jwks.sign({
          claims: { scope: 'issues:read', nbf: nowSeconds() + 300, exp: nowSeconds() + 900 },
        }),
    ],
    [
      'a token whose iat is beyond the clock skew in the future',
      () =>
        jwks.sign({
          claims: { scope: 'issues:read', iat: nowSeconds() + 300, exp: nowSeconds() + 900 },
        }),
    ],
    [
      'a token for another audience',
      () => jwks.sign({ claims: { aud: 'https://other.example/mcp', scope: 'issues:read' } }),
    ],
    [
      'a token from another issuer',
      () => jwks.sign({ claims: { iss: 'https://evil.example', scope: 'issues:read' } }),
    ],
    [
      'an unsigned token with alg none',
      async () =>
        unsignedToken({
          iss: jwks.issuer,
          aud: jwks.audience,
          sub: 'user-1',
          scope: 'issues:read',
          exp: nowSeconds() + 300,
        }),
    ],
    [
      "an HS256 token keyed with the RSA public key's PEM",
      async () =>
        hmacToken(
          keys.RS256.publicPem,
          {
            iss: jwks.issuer,
            aud: jwks.audience,
            sub: 'user-1',
            scope: 'issues:read',
            exp: nowSeconds() + 300,
          },
          keys.RS256.kid,
        ),
    ],
    [
      "an HS256 token keyed with the RSA public key's JWK",
      async () =>
        hmacToken(
          JSON.stringify(keys.RS256.publicJwk),
          {
            iss: jwks.issuer,
            aud: jwks.audience,
            sub: 'user-1',
            scope: 'issues:read',
            exp: nowSeconds() + 300,
          },
          keys.RS256.kid,
        ),
    ],
    [
      'a token with an unknown kid',
      () => jwks.sign({ kid: 'no-such-kid', claims: { scope: 'issues:read' } }),
    ],
    [
      "a token signed by another key under the issuer's kid",
      async () => {
        // Same issuer, audience and kid as the real key; only the signature is foreign.
        const other = await otherKeysPromise;
        return signToken(
          { ...other, RS256: { ...other.RS256, kid: keys.RS256.kid } },
          { iss: jwks.issuer, aud: jwks.audience, scope: 'issues:read' },
        );
      },
    ],
    ['a token without exp', () => jwks.sign({ claims: { scope: 'issues:read', exp: undefined } })],
    // Each would otherwise be one shared caller: its approvals, own-call checks and rate
    // limits mixed with every other token lacking a subject.
    ['a token without sub', () => jwks.sign({ claims: { scope: 'issues:read', sub: undefined } })],
    ['a token whose sub is empty', () => jwks.sign({ claims: { scope: 'issues:read', sub: '' } })],
    [
      'a token whose sub is not a string',
      () => jwks.sign({ claims: { scope: 'issues:read', sub: 42 as unknown as string } }),
    ],
    ['a bearer value that is not a JWT', async () => 'not-a-jwt-and-not-a-key'],
  ];

  describe.each(SURFACES)('on %s', (_surface, call) => {
    it('answers 200 for a valid RS256 token and a valid ES256 token', async () => {
      for (const alg of ['RS256', 'ES256'] as const) {
        const token = await jwks.sign({ alg, claims: { scope: 'issues:read' } });
        const r = await upstreamDelta(1, () => call(gwOAuth, token, 'list_issues', GOOD_ARGS));
        expect(r.status).toBe(200);
        if (call !== viaRest) expect(toolResult(r).isError).toBe(false);
      }
    });

    it.each(rejected)(
      'refuses %s with 401, an invalid_token challenge, and no upstream request',
      async (_name, make) => {
        const token = await make();
        const r = await upstreamDelta(0, () => call(gwOAuth, token, 'list_issues', GOOD_ARGS));
        expectUnauthorized(gwOAuth, r, 'invalid_token');
      },
    );

    it('refuses a request without Authorization with 401 and a challenge without error', async () => {
      const r = await upstreamDelta(0, () => call(gwOAuth, undefined, 'list_issues', GOOD_ARGS));
      expectUnauthorized(gwOAuth, r, undefined);
    });

    it('does not accept a valid token sent as ?access_token= in the query string', async () => {
      const token = await jwks.sign({ claims: { scope: 'issues:read' } });
      sentCredentials.add(token);
      const r = await upstreamDelta(0, () =>
        call(gwOAuth, undefined, 'list_issues', GOOD_ARGS, {
          query: `?access_token=${encodeURIComponent(token)}`,
        }),
      );
      expectUnauthorized(gwOAuth, r, undefined);
    });

    it('refuses a Basic or otherwise non-Bearer Authorization with 401', async () => {
      const r = await upstreamDelta(0, () =>
        call(gwOAuth, undefined, 'list_issues', GOOD_ARGS, {
          extraHeaders: {
            authorization: `Basic ${Buffer.from(`x:${READ_KEY_1}`).toString('base64')}`,
          },
        }),
      );
      expectUnauthorized(gwOAuth, r, 'invalid_request');
    });
  });

  it('answers a token lacking the scope with 403 insufficient_scope, not 401', async () => {
    const token = await jwks.sign({ claims: { scope: 'issues:read' } });
    const r = await upstreamDelta(0, () =>
      viaRest(gwOAuth, token, 'create_issue_comment', { ...GOOD_ARGS, number: 1, body: 'hi' }),
    );
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="issues:read issues:write"/,
    );
  });

  it('accepts a token whose nbf, iat or exp is off by less than the 30 s clock skew', async () => {
    for (const claims of [
      { nbf: nowSeconds() + 10 },
      { iat: nowSeconds() + 10 },
      { exp: nowSeconds() - 10 },
    ]) {
      const token = await jwks.sign({ claims: { scope: 'issues:read', ...claims } });
      const r = await upstreamDelta(1, () => viaRest(gwOAuth, token, 'list_issues', GOOD_ARGS));
      expect(r.status).toBe(200);
    }
  });

  it('takes scopes from an scp array claim as well as from scope', async () => {
    const token = await jwks.sign({ claims: { scp: ['issues:read', 'issues:write'] } });
    const r = await upstreamDelta(1, () =>
      viaRest(gwOAuth, token, 'create_issue_comment', { ...GOOD_ARGS, number: 1, body: 'hi' }),
    );
    expect(r.status).toBe(200);
  });

  it('never forwards the caller token upstream: the upstream sees only the spec credential', async () => {
    const token = await jwks.sign({ claims: { scope: 'issues:read' } });
    await viaRest(gwOAuth, token, 'list_issues', GOOD_ARGS);
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
    expect(JSON.stringify(seen)).not.toContain(token);
  });
});

describe('an unreachable JWKS', () => {
  // Each gateway has never fetched its keys, so every call needs the JWKS.
  let closedJwks: JwksServer;
  let failingJwks: JwksServer;
  let hangingJwks: JwksServer;
  let gwClosed: TestGateway;
  let gwFailing: TestGateway;
  let gwHanging: TestGateway;

  beforeAll(async () => {
    [closedJwks, failingJwks, hangingJwks] = await Promise.all([
      startJwks({ keys }),
      startJwks({ keys, mode: 'error' }),
      startJwks({ keys, mode: 'hang' }),
    ]);
    await closedJwks.close();
    [gwClosed, gwFailing, gwHanging] = await Promise.all([
      startGateway(oauthSpec(upstream.url, closedJwks), { env: KEY_ENV }),
      startGateway(oauthSpec(upstream.url, failingJwks), { env: KEY_ENV }),
      startGateway(oauthSpec(upstream.url, hangingJwks), { env: KEY_ENV }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gwClosed, gwFailing, gwHanging].map((g) => g?.close()));
    await Promise.all([closedJwks, failingJwks, hangingJwks].map((j) => j?.close()));
  });

  it.each([
    ['closed (connection refused)', () => gwClosed],
    ['answering 500', () => gwFailing],
  ])(
    'when %s turns a well-signed token into 401 invalid_token on every surface, with no upstream request',
    async (_name, gw) => {
      const token = await jwks.sign({ claims: { scope: 'issues:read' } });
      for (const [, call] of SURFACES) {
        const r = await upstreamDelta(0, () => call(gw(), token, 'list_issues', GOOD_ARGS));
        expectUnauthorized(gw(), r, 'invalid_token');
        // The reason names the keys, not the token (which is fine).
        expect(r.text).toContain('the issuer keys could not be fetched');
      }
      expect((await fetch(`${gw().url}/healthz`)).status).toBe(200);
    },
  );

  it('that hangs is given up after its fetch timeout: 401 on every surface, and /healthz answers meanwhile', async () => {
    const token = await jwks.sign({ claims: { scope: 'issues:read' } });
    const before = hangingJwks.fetches;
    let settled = false;
    const pending = upstreamDelta(0, () =>
      Promise.all(SURFACES.map(([, call]) => call(gwHanging, token, 'list_issues', GOOD_ARGS))),
    ).finally(() => (settled = true));
    // The key fetch is out and hanging: a probe is answered while the token calls wait on it.
    while (hangingJwks.fetches === before) await new Promise((r) => setTimeout(r, 10));
    expect((await fetch(`${gwHanging.url}/healthz`)).status).toBe(200);
    expect(settled).toBe(false);
    for (const r of await pending) {
      expectUnauthorized(gwHanging, r, 'invalid_token');
      expect(r.text).toContain('the issuer keys could not be fetched');
    }
  });

  it('that hangs does not hold up an API-key caller: its call never asks for the keys', async () => {
    const before = hangingJwks.fetches;
    const r = await upstreamDelta(1, () =>
      viaRest(gwHanging, READ_KEY_1, 'list_issues', GOOD_ARGS),
    );
    expect(r.status).toBe(200);
    expect(hangingJwks.fetches).toBe(before);
  });
});

describe('a flood of tokens with unknown kids', () => {
  let floodJwks: JwksServer;
  let gw: TestGateway;

  beforeAll(async () => {
    floodJwks = await startJwks({ keys });
    gw = await startGateway(oauthSpec(upstream.url, floodJwks), { env: KEY_ENV });
  });

  afterAll(async () => {
    await gw?.close();
    await floodJwks?.close();
  });

  it('is refused with 401 while the gateway keeps serving, and refetches the JWKS at most once per cooldown', async () => {
    const valid = await floodJwks.sign({ claims: { scope: 'issues:read' } });
    expect((await viaRest(gw, valid, 'list_issues', GOOD_ARGS)).status).toBe(200);
    const tokens = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        floodJwks.sign({
          alg: i % 2 === 0 ? 'ES256' : 'RS256',
          kid: `random-${i}-${Math.random().toString(36).slice(2)}`,
          claims: { scope: 'issues:read' },
        }),
      ),
    );
    const probes: Promise<number>[] = [];
    const answers = await upstreamDelta(0, () =>
      Promise.all(
        tokens.map((t, i) => {
          if (i % 50 === 0) probes.push(fetch(`${gw.url}/healthz`).then((r) => r.status));
          return postJson(`${gw.url}/api/list_issues`, GOOD_ARGS, {
            authorization: `Bearer ${t}`,
          });
        }),
      ),
    );
    for (const r of answers) {
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    expect(await Promise.all(probes)).toEqual([200, 200, 200, 200]);
    expect(floodJwks.fetches).toBeLessThanOrEqual(2);
    // Still serving the real keys afterwards.
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect((await viaRest(gw, valid, 'list_issues', GOOD_ARGS)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------

describe('API keys', () => {
  it.each([
    ['the first key of KEYS_READ', READ_KEY_1],
    ['the second key of KEYS_READ', READ_KEY_2],
    ['the KEYS_ADMIN key', ADMIN_KEY],
  ])('accepts %s on every surface', async (_name, key) => {
    for (const [, call] of SURFACES) {
      const r = await upstreamDelta(1, () => call(gwKeys, key, 'list_issues', GOOD_ARGS));
      expect(r.status).toBe(200);
      if (call !== viaRest) expect(toolResult(r).isError).toBe(false);
    }
  });

  it.each(SURFACES)(
    'refuses a wrong key on %s with 401 invalid_token and no upstream request',
    async (_name, call) => {
      for (const key of [WRONG_KEY, `${READ_KEY_1}x`, READ_KEY_1.slice(0, -1)]) {
        const r = await upstreamDelta(0, () => call(gwKeys, key, 'list_issues', GOOD_ARGS));
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      }
    },
  );

  it('refuses two keys joined by a comma, as KEYS_READ holds them', async () => {
    const r = await upstreamDelta(0, () =>
      viaRest(gwKeys, `${READ_KEY_1},${READ_KEY_2}`, 'list_issues', GOOD_ARGS),
    );
    expect(r.status).toBe(401);
  });

  it('answers a missing scope on POST /api with 403 and an insufficient_scope challenge naming every required scope', async () => {
    const r = await upstreamDelta(0, () =>
      viaRest(gwKeys, READ_KEY_1, 'create_issue_comment', { ...GOOD_ARGS, number: 1, body: 'x' }),
    );
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", scope="issues:read issues:write"/,
    );
    expect(r.json).toMatchObject({ error: { code: 'INSUFFICIENT_SCOPE' } });
  });

  it.each([
    ['2026-07-28', viaMcpModern],
    ['2025-11-25', viaMcpLegacy],
  ])(
    'answers a missing scope on /mcp tools/call (%s) with HTTP 403 and the same challenge',
    async (_era, call) => {
      const r = await upstreamDelta(0, () =>
        call(gwKeys, READ_KEY_2, 'create_issue_comment', { ...GOOD_ARGS, number: 1, body: 'x' }),
      );
      expect(r.status).toBe(403);
      expect(r.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_scope", scope="issues:read issues:write"/,
      );
      expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600 } });
    },
  );

  it('lets the admin key call the grant that needs issues:write', async () => {
    const r = await upstreamDelta(1, () =>
      viaRest(gwKeys, ADMIN_KEY, 'create_issue_comment', { ...GOOD_ARGS, number: 1, body: 'x' }),
    );
    expect(r.status).toBe(200);
  });

  it('forwards only the spec credential upstream, never the caller key', async () => {
    const before = upstream.requests.length;
    for (const [, call] of SURFACES) await call(gwKeys, ADMIN_KEY, 'list_issues', GOOD_ARGS);
    const seen = upstream.requests.slice(before);
    expect(seen).toHaveLength(SURFACES.length);
    for (const req of seen) {
      expect(req.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
      const all = JSON.stringify(req);
      for (const k of [READ_KEY_1, READ_KEY_2, ADMIN_KEY]) expect(all).not.toContain(k);
    }
  });

  it('does not accept a key sent as ?access_token= in the query string', async () => {
    const r = await upstreamDelta(0, () =>
      postJson(`${gwKeys.url}/api/list_issues?access_token=${READ_KEY_1}`, GOOD_ARGS),
    );
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).not.toContain('error=');
  });
});

// ---------------------------------------------------------------------------------

/** Sends `head` and then `body` on a raw socket; resolves with all it received once closed. */
function rawExchange(url: string, head: string, body = ''): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(head);
      if (body) socket.write(body);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('credentials before bodies', () => {
  const OVER_LIMIT = `[${'1,'.repeat(2_600_000)}1]`; // about 5.2 MB, over the 4 MiB limit
  const ENDPOINTS: [string, string, Record<string, string>][] = [
    ['POST /api/<tool>', '/api/list_issues', {}],
    ['POST /mcp', '/mcp', LEGACY_HEADERS],
  ];

  it.each(ENDPOINTS)(
    '%s answers a stranger sending a body over 4 MiB with 401, not 413',
    async (_name, path, headers) => {
      for (const auth of [{}, bearer(WRONG_KEY)]) {
        const r = await upstreamDelta(0, () =>
          postJson(`${gwKeys.url}${path}`, OVER_LIMIT, { ...headers, ...auth }),
        );
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
        if (path !== '/mcp') expect(r.json).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
        else expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
    },
  );

  it.each(ENDPOINTS)(
    '%s answers a stranger sending a body that is not JSON with 401, not 400',
    async (_name, path, headers) => {
      const r = await upstreamDelta(0, () =>
        postJson(`${gwKeys.url}${path}`, '{"owner": "acme", ', {
          ...headers,
          ...bearer(WRONG_KEY),
        }),
      );
      expect(r.status).toBe(401);
    },
  );

  it.each(ENDPOINTS)(
    '%s answers a stranger 401 before the body it announced has arrived, and closes the connection',
    async (_name, path) => {
      const head =
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        'accept: application/json, text/event-stream\r\ncontent-length: 1000000\r\n\r\n';
      // Ten bytes of a million: the answer cannot have waited for the rest.
      const answer = await rawExchange(gwKeys.url, head, '{"owner":"');
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toMatch(/\r\nwww-authenticate: Bearer\b/i);
    },
  );

  it('still answers a caller with a valid key and a body over 4 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const r = await upstreamDelta(0, () =>
      postJson(`${gwKeys.url}/api/list_issues`, OVER_LIMIT, bearer(READ_KEY_1)),
    );
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('checks the key again when a reload that dropped it came while the body was arriving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-auth-reload-'));
    const file = join(dir, 'keys.mcp.kdl');
    const specWith = (env: string) =>
      keysSpec(upstream.url).replace('api-key env="KEYS_READ"', `api-key env="${env}"`);
    writeFileSync(file, specWith('KEYS_READ'));
    const gw = await startGateway(specWith('KEYS_READ'), {
      env: { ...KEY_ENV, KEYS_OTHER: 'another-key-2b7c9e' },
      specFile: file,
    });
    try {
      const body = JSON.stringify(GOOD_ARGS);
      const { hostname, port } = new URL(gw.url);
      const started = new Promise<void>((resolve) =>
        gw.app.server.once('request', () => resolve()),
      );
      let received = '';
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        socket.write(
          `POST /api/list_issues HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
            `authorization: Bearer ${READ_KEY_1}\r\ncontent-length: ${body.length}\r\n\r\n` +
            body.slice(0, 5),
        );
      });
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (received += c));
      const answered = new Promise<void>((resolve) => socket.on('data', () => resolve()));
      await started;
      // The key was valid when the head arrived; the new spec no longer reads KEYS_READ.
      writeFileSync(file, specWith('KEYS_OTHER'));
      expect(await gw.reload()).toMatchObject({ ok: true });
      const before = upstream.requests.length;
      socket.write(body.slice(5));
      await answered;
      socket.destroy();
      expect(received).toMatch(/^HTTP\/1\.1 401 /);
      expect(upstream.requests.length).toBe(before);
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the caller found before the body for the call: a valid key is served', async () => {
    const r = await upstreamDelta(1, () => viaRest(gwKeys, READ_KEY_2, 'list_issues', GOOD_ARGS));
    expect(r.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------

type ListedTool = { name: string; inputSchema: { properties?: Record<string, unknown> } };

async function connectV2(
  gw: TestGateway,
  key: string,
  mode: 'legacy' | { pin: string },
): Promise<ClientV2> {
  sentCredentials.add(key);
  const client = new ClientV2(
    { name: 'access-test', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(
    new TransportV2(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe('tool lists filtered by the caller scopes', () => {
  const READ_TOOLS = ['list_issues', 'get_rate_limit'];
  const ADMIN_TOOLS = ['list_issues', 'create_issue_comment', 'get_rate_limit'];

  it.each([
    ['pinned to 2026-07-28', { pin: MODERN }],
    ['in legacy mode', 'legacy'],
  ] as const)(
    'give two API keys two different tool lists through the SDK v2 client %s',
    async (_name, mode) => {
      for (const [key, expected] of [
        [READ_KEY_1, READ_TOOLS],
        [ADMIN_KEY, ADMIN_TOOLS],
      ] as const) {
        const client = await connectV2(gwKeys, key, mode);
        try {
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).toEqual(expected);
        } finally {
          await client.close();
        }
      }
    },
  );

  it('lets the SDK v2 client call a tool with its key, and refuses a tool outside its scopes', async () => {
    const client = await connectV2(gwKeys, READ_KEY_1, { pin: MODERN });
    try {
      const ok = (await upstreamDelta(1, () =>
        client.callTool({ name: 'list_issues', arguments: GOOD_ARGS }),
      )) as { isError?: boolean };
      expect(ok.isError).toBe(false);
      await upstreamDelta(0, async () => {
        const denied = client
          .callTool({
            name: 'create_issue_comment',
            arguments: { ...GOOD_ARGS, number: 1, body: 'x' },
          })
          .then(
            (r) => r as { isError?: boolean },
            (err: unknown) => err as Error,
          );
        const out = await denied;
        // Either a thrown protocol error or an error result; never a success.
        if (out instanceof Error) expect(out.message).toMatch(/scope|403|Forbidden/i);
        else expect(out.isError).toBe(true);
      });
    } finally {
      await client.close();
    }
  });

  it('marks the modern tools/list cacheScope "private" when access is on', async () => {
    const r = await postJson(`${gwKeys.url}/mcp`, modernBody('tools/list', {}), {
      ...modernHeaders('tools/list'),
      ...bearer(READ_KEY_1),
    });
    expect(r.status).toBe(200);
    const result = (r.json as { result: { cacheScope: string; tools: ListedTool[] } }).result;
    expect(result.cacheScope).toBe('private');
    expect(result.tools.map((t) => t.name)).toEqual(READ_TOOLS);
  });

  it.each([
    ['a KEYS_READ key', READ_KEY_2, READ_TOOLS],
    ['the KEYS_ADMIN key', ADMIN_KEY, ADMIN_TOOLS],
  ])(
    'lists on GET /api only the tools %s may call, as a private response',
    async (_n, key, expected) => {
      const res = await fetch(`${gwKeys.url}/api`, { headers: bearer(key) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/^private/);
      const body = (await res.json()) as { tools: { name: string }[] };
      expect(body.tools.map((t) => t.name)).toEqual(expected);
    },
  );

  it('refuses GET /api and tools/list without a key', async () => {
    const api = await fetch(`${gwKeys.url}/api`);
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    const list = await postJson(
      `${gwKeys.url}/mcp`,
      modernBody('tools/list', {}),
      modernHeaders('tools/list'),
    );
    expect(list.status).toBe(401);
    expect(list.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });
});

// ---------------------------------------------------------------------------------

describe('RFC 9728 protected resource metadata', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    'is served at %s without a token when oauth is configured',
    async (path) => {
      const res = await fetch(`${gwOAuth.url}${path}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        resource: `${gwOAuth.url}/mcp`,
        authorization_servers: [jwks.issuer],
        scopes_supported: ['issues:read', 'issues:write'],
        bearer_methods_supported: ['header'],
      });
    },
  );

  it('is where the 401 challenge points', async () => {
    const r = await viaRest(gwOAuth, undefined, 'list_issues', GOOD_ARGS);
    const m = /resource_metadata="([^"]+)"/.exec(r.headers.get('www-authenticate') ?? '');
    expect(m).not.toBeNull();
    const res = await fetch(m![1]!);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ authorization_servers: [jwks.issuer] });
  });

  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    'is not served at %s (404) when only API keys are configured',
    async (path) => {
      // No authorization server to name (protected-resource-metadata.test.ts has the rest).
      const res = await fetch(`${gwKeys.url}${path}`);
      expect(res.status).toBe(404);
    },
  );

  it('is not served (404) when the spec has no access block', async () => {
    const open = await startGateway(
      `wrap "open" version="1.0.0"\nbase-url "${upstream.url}/api"\ncan get thing {\n    describe "x"\n    path "/thing"\n}\n`,
    );
    try {
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
      ]) {
        expect((await fetch(`${open.url}${path}`)).status).toBe(404);
      }
    } finally {
      await open.close();
    }
  });
});

// ---------------------------------------------------------------------------------

describe('from-claim arguments', () => {
  const orgToken = (org: unknown): Promise<string> =>
    jwks.sign({ claims: { scope: 'issues:read', org } });

  it.each(SURFACES)('send the token org claim upstream as owner on %s', async (_name, call) => {
    const token = await orgToken('acme-from-token');
    const r = await upstreamDelta(1, () => call(gwOAuth, token, 'list_org_repos', { per_page: 5 }));
    expect(r.status).toBe(200);
    if (call !== viaRest) expect(toolResult(r).isError).toBe(false);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/api/org-repos');
    expect(new URLSearchParams(seen.query).get('owner')).toBe('acme-from-token');
    expect(new URLSearchParams(seen.query).get('per_page')).toBe('5');
  });

  it('leave owner out of the tool inputSchema', async () => {
    const token = await orgToken('acme');
    for (const body of [
      { json: modernBody('tools/list', {}), headers: modernHeaders('tools/list') },
      {
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: LEGACY_HEADERS,
      },
    ]) {
      const r = await postJson(`${gwOAuth.url}/mcp`, body.json, {
        ...body.headers,
        ...bearer(token),
      });
      const tools = (r.json as { result: { tools: ListedTool[] } }).result.tools;
      const tool = tools.find((t) => t.name === 'list_org_repos')!;
      expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(['per_page']);
      expect(JSON.stringify(tool.inputSchema)).not.toContain('owner');
    }
    const api = await fetch(`${gwOAuth.url}/api`, { headers: bearer(token) });
    const listed = ((await api.json()) as { tools: ListedTool[] }).tools.find(
      (t) => t.name === 'list_org_repos',
    )!;
    expect(JSON.stringify(listed.inputSchema)).not.toContain('owner');
  });

  it.each(SURFACES)(
    'refuse a caller-supplied owner on %s without calling the upstream',
    async (_name, call) => {
      const token = await orgToken('acme');
      const r = await upstreamDelta(0, () =>
        call(gwOAuth, token, 'list_org_repos', { owner: 'someone-else' }),
      );
      if (call === viaRest) {
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
        expect(r.text).toContain('owner');
      } else {
        expect(r.status).toBe(200);
        expect(toolResult(r).isError).toBe(true);
        expect(toolResult(r).content[0]!.text).toContain('owner');
      }
    },
  );

  it.each(SURFACES)(
    'give an API-key caller, who has no claims, a clear error naming the claim on %s',
    async (_name, call) => {
      const r = await upstreamDelta(0, () => call(gwOAuth, READ_KEY_1, 'list_org_repos', {}));
      if (call === viaRest) {
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.text).toMatch(/claim org/);
      } else {
        expect(r.status).toBe(200);
        expect(toolResult(r).isError).toBe(true);
        expect(toolResult(r).content[0]!.text).toMatch(/claim org/);
      }
    },
  );

  it('give a token without the claim the same clear error', async () => {
    const token = await jwks.sign({ claims: { scope: 'issues:read' } });
    const r = await upstreamDelta(0, () => viaRest(gwOAuth, token, 'list_org_repos', {}));
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.text).toMatch(/claim org/);
  });
});

describe('from-claim values', () => {
  // Claims are bound after the caller's arguments were checked; they must still pass
  // the allowlists, the path gate, and the field type.
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(
      `
wrap "claims" version="1.0.0"
base-url "${upstream.url}/api"
restrict {
    owner "acme" "acme-labs"
}
access {
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
}
can list tenant-repos {
    describe "Repositories of the caller's tenant."
    path "/tenants/{tenant}/repos" {
        tenant "string" from-claim="tenant"
    }
    query {
        owner "string" from-claim="org"
        limit "integer" from-claim="limit"
    }
}
`,
    );
  });

  afterAll(async () => {
    await gw?.close();
  });

  const call = (claims: Record<string, unknown>): Promise<Answer> =>
    jwks
      .sign({ claims: { tenant: 't1', org: 'acme', limit: 5, ...claims } })
      .then((token) => viaRest(gw, token, 'list_tenant_repos', {}));

  it('reach the upstream when they fit the field types and the allowlist', async () => {
    const r = await upstreamDelta(1, () => call({ org: 'acme-labs' }));
    expect(r.status).toBe(200);
    expect(upstream.requests.at(-1)!.url).toBe('/api/tenants/t1/repos?owner=acme-labs&limit=5');
  });

  it('are refused by restrict like a caller-supplied value, on both surfaces', async () => {
    const r = await upstreamDelta(0, () => call({ org: 'evil-corp' }));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: { code: 'DENIED_BY_RESTRICT' } });
    const token = await jwks.sign({ claims: { tenant: 't1', org: 'evil-corp', limit: 5 } });
    const m = await upstreamDelta(0, () => viaMcpModern(gw, token, 'list_tenant_repos', {}));
    expect(toolResult(m).isError).toBe(true);
    expect(toolResult(m).content[0]!.text).toContain('DENIED_BY_RESTRICT');
  });

  it.each([
    ['a slash', 'a/b'],
    ['a parent segment', '..'],
    ['a percent escape', '%2e%2e'],
  ])('in a path are refused when they hold %s', async (_name, tenant) => {
    const r = await upstreamDelta(0, () => call({ tenant }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { code: 'PATH_VALUE_REJECTED' } });
  });

  it.each([
    ['an object for a string field', { org: { name: 'acme' } }],
    ['an array for a string field', { org: ['acme', 'acme-labs'] }],
    ['a string for an integer field', { limit: '5' }],
    ['a fraction for an integer field', { limit: 2.5 }],
  ])('are refused when the token holds %s', async (_name, claims) => {
    const r = await upstreamDelta(0, () => call(claims));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: { code: 'MISSING_CLAIM' } });
    expect(r.text).toMatch(/does not hold a (string|integer) value/);
  });
});

// ---------------------------------------------------------------------------------

describe('credentials in the logs', () => {
  it('never show an API key, a wrong key, or a token any test sent', () => {
    const logs = [gwOAuth.logs(), gwKeys.logs()].join('\n');
    expect(logs.length).toBeGreaterThan(0);
    const secrets = [READ_KEY_1, READ_KEY_2, ADMIN_KEY, WRONG_KEY, ...sentCredentials];
    // Only the offending lines, so a failure is readable.
    const leaks = logs.split('\n').filter((line) => secrets.some((k) => line.includes(k)));
    expect(leaks).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------

describe('binding safety of mcp-beaver serve', () => {
  let dir: string;
  let specFile: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-access-'));
    specFile = join(dir, 'open.mcp.kdl');
    writeFileSync(
      specFile,
      `wrap "open" version="1.0.0"\nbase-url "http://127.0.0.1:9/api"\ncan get thing {\n    path "/thing"\n}\n`,
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts `serve`, waits for the listening line, sends SIGTERM, and reports. */
  function serveUntilListening(
    args: string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string; listening: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'serve', specFile, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let listening = false;
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString();
        if (!listening && stdout.includes('"mcp-beaver listening"')) {
          listening = true;
          child.kill('SIGTERM');
        }
      });
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, listening });
      });
    });
  }

  it('refuses to listen on 0.0.0.0 without an access block and explains why on stderr', async () => {
    const r = await runCli(['serve', specFile, '--http', '0.0.0.0:0']);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain('refusing to listen on 0.0.0.0:0');
    expect(r.stderr).toContain('access');
    expect(r.stderr).toContain('--insecure-no-auth');
    expect(r.stdout).not.toContain('mcp-beaver listening');
  });

  it('listens on 0.0.0.0 with --insecure-no-auth, warns in the log, and exits 0 on SIGTERM', async () => {
    const r = await serveUntilListening(['--http', '0.0.0.0:0', '--insecure-no-auth']);
    expect(r.listening).toBe(true);
    expect(r.code).toBe(0);
    const warning = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.level === 40);
    expect(warning?.msg).toContain('--insecure-no-auth');
  });

  it('listens on loopback without an access block and without a warning', async () => {
    const r = await serveUntilListening(['--http', '127.0.0.1:0']);
    expect(r.listening).toBe(true);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('insecure-no-auth');
  });
  it('serves /metrics only on the --metrics-http listener, which the listening line names', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', specFile, '--http', '127.0.0.1:0', '--metrics-http', '127.0.0.1:0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const listening = await new Promise<{ url: string; metrics?: string }>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (b: Buffer) => {
          stdout += b.toString();
          const line = stdout.split('\n').find((l) => l.includes('"mcp-beaver listening"'));
          if (line) resolve(JSON.parse(line) as { url: string; metrics?: string });
        });
        child.on('error', reject);
        child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stdout}`)));
      });
      expect(listening.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scraped = await fetch(listening.metrics!);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('mcp_beaver_spec_generation 1');
      const main = await fetch(`${listening.url}/metrics`);
      expect(main.status).toBe(404);
      expect(await main.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    } finally {
      const closed = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await closed;
    }
  });

  it('refuses a --metrics-http that is not [host]:port with exit 2, naming the flag', async () => {
    const r = await runCli(['serve', specFile, '--metrics-http', 'nowhere']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--metrics-http "nowhere"');
  });
});
