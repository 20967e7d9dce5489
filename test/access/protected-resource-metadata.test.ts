/**
 * RFC 9728 protected resource metadata and the challenges that point at it (MCP
 * authorization: the metadata names at least one authorization server). With `oauth`
 * it is served and lists every scope a token may need here, the resources' and prompts'
 * with the tools'. With API keys only there is no authorization server to name: no
 * metadata route (404), and no challenge carries resource_metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { startJwks, type JwksServer } from '../helpers/jwks.js';
import { postToolCall } from '../helpers/call-tool.js';
import { issueCommentGrant, listIssuesGrant, specHead } from '../helpers/spec-fixtures.js';

const READ_KEY = 'metadata-read-key-5c2e9a';
const ENV = { ISSUES_TOKEN: 'upstream-token-1b7d', KEYS_READ: READ_KEY };
const PATHS = [
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource',
];

function spec(upstream: string, oauth: string): string {
  return `
${specHead('metadata', `${upstream}/api`, { bearerEnv: 'ISSUES_TOKEN' })}
access {
    api-key env="KEYS_READ" scopes="issues:read"
    ${oauth}
}
${listIssuesGrant({ scopes: ['issues:read'] })}
${issueCommentGrant(['issues:read', 'issues:write'])}
resource "docs://handbook" text="Read me." {
    scope "docs:read"
}
prompt "triage" {
    scope "prompts:triage"
    message "user" "Triage."
}
`;
}

let upstream: Upstream;
let jwks: JwksServer;
let gwOAuth: TestGateway;
let gwKeys: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => {
    res.end('[]');
  });
  jwks = await startJwks();
  gwOAuth = await startGateway(
    spec(
      upstream.url,
      `oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"`,
    ),
    { env: ENV },
  );
  gwKeys = await startGateway(spec(upstream.url, ''), { env: ENV });
});

afterAll(async () => {
  await gwOAuth?.close();
  await gwKeys?.close();
  await jwks?.close();
  await upstream?.close();
});

function mcpCall(gw: TestGateway, auth: Record<string, string>, name: string) {
  return postToolCall(
    gw.url,
    name,
    { owner: 'acme', repo: 'rocket', number: 1, body: 'x' },
    { era: 'modern', headers: auth },
  );
}

function restCall(gw: TestGateway, auth: Record<string, string>, name: string) {
  return postJson(
    `${gw.url}/api/${name}`,
    { owner: 'acme', repo: 'rocket', number: 1, body: 'x' },
    auth,
  );
}

describe('with oauth, the metadata', () => {
  it.each(PATHS)('at %s lists the scopes of tools, resources and prompts alike', async (path) => {
    const res = await fetch(`${gwOAuth.url}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resource: `${gwOAuth.url}/mcp`,
      authorization_servers: [jwks.issuer],
      scopes_supported: ['docs:read', 'issues:read', 'issues:write', 'prompts:triage'],
    });
  });

  it('is named by the 401 and the 403 challenges', async () => {
    const meta = `resource_metadata="${gwOAuth.url}${PATHS[0]}"`;
    const none = await restCall(gwOAuth, {}, 'list_issues');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer ${meta}`);
    const scope = await restCall(
      gwOAuth,
      { authorization: `Bearer ${READ_KEY}` },
      'create_issue_comment',
    );
    expect(scope.status).toBe(403);
    expect(scope.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="issues:read issues:write", ${meta}`,
    );
  });
});

describe('with API keys only', () => {
  it.each(PATHS)('%s is not served: 404', async (path) => {
    const res = await fetch(`${gwKeys.url}${path}`);
    expect(res.status).toBe(404);
  });

  it.each([
    ['REST', restCall],
    ['MCP', mcpCall],
  ] as const)('the %s challenges carry no resource_metadata', async (_surface, call) => {
    const none = await call(gwKeys, {}, 'list_issues');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await call(gwKeys, { authorization: 'Bearer not-a-key' }, 'list_issues');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('the 403 challenge names the scopes, and no metadata', async () => {
    const r = await restCall(
      gwKeys,
      { authorization: `Bearer ${READ_KEY}` },
      'create_issue_comment',
    );
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="issues:read issues:write"',
    );
  });
});
