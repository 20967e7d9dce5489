/**
 * With `oauth`, each toolset URL is a protected resource of its own (spec-language.md,
 * "Served at `/mcp/<toolset>`"): RFC 9728 metadata at the path suffixed with the toolset
 * URL's, the challenges of a request there pointing at it, and a token accepted there
 * when its audience is the configured one or that with `/<toolset>` appended. A real
 * JWKS (test/helpers/jwks.ts) signs the tokens; nothing is derived from the Host header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import { startJwks, type JwksServer } from '../helpers/jwks.js';
import { okJson, startUpstream, type Upstream } from '../helpers/upstream.js';
import { connectTo, TRIAGE_TOOLS, toolsetsSpec } from '../helpers/toolsets-spec.js';

const METADATA = '/.well-known/oauth-protected-resource';
const ALL_SCOPES = 'tickets:read billing:read';

let upstream: Upstream;
let jwks: JwksServer;
let gw: TestGateway;
/** The same spec with the audience configured with a trailing slash. */
let gwSlash: TestGateway;

function oauthSpec(audience: string): string {
  return toolsetsSpec({
    upstream: upstream.url,
    access: `oauth issuer="${jwks.issuer}" audience="${audience}" jwks-uri="${jwks.url}"`,
  });
}

beforeAll(async () => {
  upstream = await startUpstream(okJson);
  jwks = await startJwks();
  gw = await startGateway(oauthSpec(jwks.audience));
  gwSlash = await startGateway(oauthSpec(`${jwks.audience}/`));
});

afterAll(async () => {
  await gw?.close();
  await gwSlash?.close();
  await jwks?.close();
  await upstream?.close();
});

/** A token for `aud` holding `scope`. */
function token(aud: string, scope = ALL_SCOPES): Promise<string> {
  return jwks.sign({ claims: { aud, scope } });
}

/** One 2025-11-25 request to `path` of `on`, with `bearer` if given. */
function rpc(
  on: TestGateway,
  path: string,
  bearer: string | undefined,
  method = 'tools/list',
  params: Record<string, unknown> = {},
) {
  return postJson(
    `${on.url}${path}`,
    { jsonrpc: '2.0', id: 1, method, params },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      ...(bearer !== undefined && { authorization: `Bearer ${bearer}` }),
    },
  );
}

describe('the metadata of a toolset', () => {
  it('is served at the suffixed location with the toolset URL and the scopes of its members', async () => {
    const triage = await fetch(`${gw.url}${METADATA}/mcp/triage`);
    expect(triage.status).toBe(200);
    expect(await triage.json()).toEqual({
      resource: `${gw.url}/mcp/triage`,
      authorization_servers: [jwks.issuer],
      scopes_supported: ['billing:read', 'tickets:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'toolsets-test (toolset triage)',
    });
    const billing = await fetch(`${gw.url}${METADATA}/mcp/billing`);
    expect(await billing.json()).toMatchObject({
      resource: `${gw.url}/mcp/billing`,
      scopes_supported: ['billing:read'],
    });
  });

  it('leaves the metadata of /mcp as it was', async () => {
    const res = await fetch(`${gw.url}${METADATA}/mcp`);
    expect(await res.json()).toMatchObject({
      resource: `${gw.url}/mcp`,
      scopes_supported: ['billing:read', 'tickets:read'],
      resource_name: 'toolsets-test',
    });
  });

  it('is 404 NOT_FOUND for a name that is no toolset', async () => {
    const res = await fetch(`${gw.url}${METADATA}/mcp/shipping`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('the challenges of a toolset URL', () => {
  it('point a 401 at the toolset metadata, and a 401 on /mcp at that of /mcp', async () => {
    const onTriage = await rpc(gw, '/mcp/triage', undefined);
    expect(onTriage.status).toBe(401);
    expect(onTriage.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}${METADATA}/mcp/triage"`,
    );
    const onMcp = await rpc(gw, '/mcp', undefined);
    expect(onMcp.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}${METADATA}/mcp"`,
    );
  });

  it('point a 403 insufficient_scope at the toolset metadata, naming the scope', async () => {
    const bearer = await token(`${jwks.audience}/triage`, 'tickets:read');
    const r = await rpc(gw, '/mcp/triage', bearer, 'tools/call', {
      name: 'get_invoice',
      arguments: { id: 1 },
    });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="billing:read", resource_metadata="${gw.url}${METADATA}/mcp/triage"`,
    );
  });
});

describe('the audience a toolset URL accepts', () => {
  it('takes a token for the toolset URL there, and refuses it on /mcp and on another toolset', async () => {
    const bearer = await token(`${jwks.audience}/triage`);
    expect((await rpc(gw, '/mcp/triage', bearer)).status).toBe(200);
    for (const path of ['/mcp', '/mcp/billing']) {
      const r = await rpc(gw, path, bearer);
      expect(r.status, path).toBe(401);
      expect(r.headers.get('www-authenticate'), path).toContain('error="invalid_token"');
      expect(r.text, path).toContain("the token's aud claim is not valid for this server");
    }
  });

  it('refuses a token for a toolset URL on REST, and on a %-escaped spelling of that toolset', async () => {
    const bearer = await token(`${jwks.audience}/triage`);
    for (const path of ['/api', '/api?toolset=triage', '/openapi.json']) {
      const r = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
      expect(r.status, path).toBe(401);
    }
    const call = await postJson(
      `${gw.url}/api/list_tickets`,
      {},
      { authorization: `Bearer ${bearer}` },
    );
    expect(call.status).toBe(401);
    // Routed to the toolset, authenticated as /mcp: never more than /mcp accepts.
    expect((await rpc(gw, '/mcp/tri%61ge', bearer)).status).toBe(401);
  });

  it('takes a token for the gateway audience on /mcp and on every toolset', async () => {
    const bearer = await token(jwks.audience);
    for (const path of ['/mcp', '/mcp/triage', '/mcp/billing'])
      expect((await rpc(gw, path, bearer)).status, path).toBe(200);
  });

  it('refuses a token for the toolset URL without a sub claim: 401 invalid_token, naming the claim', async () => {
    for (const sub of [undefined, '']) {
      const bearer = await jwks.sign({
        claims: { aud: `${jwks.audience}/triage`, scope: ALL_SCOPES, sub },
      });
      const r = await rpc(gw, '/mcp/triage', bearer);
      expect(r.status, String(sub)).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", resource_metadata="${gw.url}${METADATA}/mcp/triage"`,
      );
      expect(r.text).toContain("the token's sub claim");
    }
  });

  it('derives nothing from the Host: a token for the URL as reached is refused', async () => {
    // The gateway is reached at 127.0.0.1:<port>; its configured audience is another URL.
    const bearer = await token(`${gw.url}/mcp/triage`);
    expect((await rpc(gw, '/mcp/triage', bearer)).status).toBe(401);
  });

  it('strips a trailing slash of the configured audience before appending the toolset', async () => {
    const bearer = await token(`${jwks.audience}/triage`);
    expect((await rpc(gwSlash, '/mcp/triage', bearer)).status).toBe(200);
    expect((await rpc(gwSlash, '/mcp', bearer)).status).toBe(401);
  });

  it('lets the SDK v2 client list the toolset with a token for its URL, in both eras', async () => {
    const bearer = await token(`${jwks.audience}/triage`);
    for (const era of ['modern', 'legacy'] as const) {
      const c = await connectTo(`${gw.url}/mcp/triage`, era, bearer);
      try {
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual(TRIAGE_TOOLS);
      } finally {
        await c.close();
      }
    }
  });
});
