/**
 * The identity chain of a call (docs/observability.md, "The identity chain"): the audit
 * line names the caller's subject or key id, the OAuth client its token was issued to,
 * and the credential kind the grant's upstream is called with; the request's span names
 * the client and the credential kind but never the subject. A real gateway, a real
 * upstream, a real JWKS server and real signed tokens; spans through the recording
 * telemetry seam.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import type { CompiledSpec } from '../../src/compiler/descriptor.js';
import { kindOf } from '../../src/engine/backends/kinds.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startJwks, type JwksServer } from '../helpers/jwks.js';
import { recordingTelemetry, type RecordingTelemetry } from '../helpers/recording-telemetry.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const UPSTREAM_TOKEN = 'upstream-token-Vb7Qm2Kx9Lp4';
const API_KEY = 'caller-key-Jt5Wn8Rc3Hy6';
const SUBJECT = 'person-4417@example.com';

function spec(upstream: string, jwks: JwksServer): string {
  return `
wrap "identity-chain" version="1.0.0"
base-url "${upstream}/v1"
auth bearer env="UPSTREAM_TOKEN"
access {
    api-key env="CALLER_KEYS" scopes="read"
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
}
can list things {
    describe "List things."
    path "/things"
    scope "read"
}
`;
}

let upstream: Upstream;
let jwks: JwksServer;
let telemetry: RecordingTelemetry;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  jwks = await startJwks();
  telemetry = recordingTelemetry();
  gw = await startGateway(spec(upstream.url, jwks), {
    env: { UPSTREAM_TOKEN, CALLER_KEYS: API_KEY },
    telemetry,
  });
});

afterAll(async () => {
  await gw?.close();
  await jwks?.close();
  await upstream?.close();
});

beforeEach(() => {
  telemetry.spans.length = 0;
});

function auditLines(logs: string): Record<string, unknown>[] {
  return logs
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.audit === 'tool_call');
}

/** The audit lines the calls made by `run` wrote. */
async function linesOf(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const before = auditLines(gw.logs()).length;
  await run();
  return auditLines(gw.logs()).slice(before);
}

async function callRest(authorization: string): Promise<void> {
  const res = await postJson(`${gw.url}/api/list_things`, {}, { authorization });
  expect(res.status).toBe(200);
}

async function callMcp(authorization: string): Promise<void> {
  const res = await postJson(
    `${gw.url}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_things', arguments: {} },
    },
    { authorization, accept: 'application/json, text/event-stream' },
  );
  expect(res.status).toBe(200);
}

describe('the audit line of a tool call', () => {
  it('names an API key caller by its key id, no OAuth client, and the service credential used upstream', async () => {
    const [line] = await linesOf(() => callRest(`Bearer ${API_KEY}`));
    expect(line).toMatchObject({
      tool: 'list_things',
      caller: 'api-key:CALLER_KEYS#1',
      credential: 'service',
      outcome: 'ok',
    });
    expect(line).not.toHaveProperty('client');
  });

  it("names an OAuth caller by its subject and the client of its token's azp, on both surfaces", async () => {
    const token = await jwks.sign({
      claims: { sub: SUBJECT, azp: 'agent-host-app', client_id: 'ignored-when-azp', scope: 'read' },
    });
    const lines = await linesOf(async () => {
      await callRest(`Bearer ${token}`);
      await callMcp(`Bearer ${token}`);
    });
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatchObject({
        caller: `sub:${SUBJECT}`,
        client: 'agent-host-app',
        credential: 'service',
      });
    expect(lines.map((l) => l.surface)).toEqual(['rest', 'mcp']);
  });

  it('takes the client from client_id when the token has no azp', async () => {
    const token = await jwks.sign({
      claims: { sub: SUBJECT, client_id: 'cli-tool', scope: 'read' },
    });
    const [line] = await linesOf(() => callRest(`Bearer ${token}`));
    expect(line).toMatchObject({ caller: `sub:${SUBJECT}`, client: 'cli-tool' });
  });

  it('leaves the client out for a token that names none, and never writes the token', async () => {
    const token = await jwks.sign({ claims: { sub: SUBJECT, azp: '', scope: 'read' } });
    const [line] = await linesOf(() => callRest(`Bearer ${token}`));
    expect(line).toMatchObject({ caller: `sub:${SUBJECT}`, credential: 'service' });
    expect(line).not.toHaveProperty('client');
    expect(gw.logs()).not.toContain(token);
    expect(gw.logs()).not.toContain(UPSTREAM_TOKEN);
  });
});

describe("the spans of a tool call's identity chain", () => {
  it('carry the credential kind and the OAuth client on the server span, the credential kind on the client span, and never the subject', async () => {
    const token = await jwks.sign({
      claims: { sub: SUBJECT, azp: 'agent-host-app', scope: 'read' },
    });
    await callRest(`Bearer ${token}`);
    const server = telemetry.one('POST /api/{tool}');
    expect(server.attributes).toMatchObject({
      'mcp_beaver.grant': 'list_things',
      'mcp_beaver.credential': 'service',
      'mcp_beaver.client': 'agent-host-app',
    });
    const client = telemetry.one('GET /things');
    expect(client.attributes).toMatchObject({ 'mcp_beaver.credential': 'service' });
    expect(client.attributes).not.toHaveProperty('mcp_beaver.client');
    const everything = JSON.stringify(telemetry.spans);
    expect(everything).not.toContain(SUBJECT);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(UPSTREAM_TOKEN);
  });

  it('carry no client for an API key caller, on the MCP server span too', async () => {
    await callMcp(`Bearer ${API_KEY}`);
    const server = telemetry.one('tools/call list_things');
    expect(server.attributes).toMatchObject({ 'mcp_beaver.credential': 'service' });
    expect(server.attributes).not.toHaveProperty('mcp_beaver.client');
    expect(JSON.stringify(telemetry.spans)).not.toContain(API_KEY);
  });

  it('say the credential kind of a refused call as well: the grant is known before any guard', async () => {
    const res = await postJson(
      `${gw.url}/api/list_things`,
      { nope: 1 },
      { authorization: `Bearer ${API_KEY}` },
    );
    expect(res.status).toBe(400);
    const server = telemetry.one('POST /api/{tool}');
    expect(server.attributes).toMatchObject({
      'mcp_beaver.credential': 'service',
      'error.type': 'INVALID_ARGUMENTS',
    });
  });
});

describe("a grant's credential kind", () => {
  function compiled(text: string): CompiledSpec {
    const result = compileSpecText(text, 'kinds.mcp.kdl');
    if (!result.compiled) throw new Error(JSON.stringify(result.diagnostics));
    return result.compiled;
  }

  function kinds(s: CompiledSpec): Record<string, string> {
    return Object.fromEntries(
      s.tools.map((d) => [d.name, kindOf(d.backend).credential(d.backend as never, s)]),
    );
  }

  it('is service for a static auth, none without one, service for SQL, and an MCP server over HTTP its transport auth, a stdio child none', () => {
    const s = compiled(`
wrap "kinds" version="1.0.0"
base-url "https://api.example.com/v1"
auth header "X-Api-Key" env="API_KEY"
database env="DATABASE_URL"
mcp-server "tracker" url="https://tracker.example.com/mcp" {
    auth bearer env="TRACKER_TOKEN"
}
mcp-server "plain" url="https://plain.example.com/mcp"
mcp-server "handbook" {
    command "node" "server.js"
}
can list things {
    describe "List things."
    path "/things"
}
can query orders {
    describe "Orders."
    sql "select id from orders"
}
can search issues {
    describe "Search issues."
    tool "tracker" "search_issues"
}
can search plain {
    describe "Search plainly."
    tool "plain" "search"
}
can read page {
    describe "Read a page."
    tool "handbook" "read_text_file"
}
`);
    expect(kinds(s)).toEqual({
      list_things: 'service',
      query_orders: 'service',
      search_issues: 'service',
      search_plain: 'none',
      read_page: 'none',
    });
    const open = compiled(`
wrap "open" version="1.0.0"
base-url "https://api.example.com/v1"
can list things {
    describe "List things."
    path "/things"
}
`);
    expect(kinds(open)).toEqual({ list_things: 'none' });
  });

  it('is the auth of the named upstream a grant calls: client-credentials, exchange, user:<provider>, or none', () => {
    const s = compiled(`
wrap "named" version="1.0.0"
upstream "billing" base-url="https://billing.example.com/v2" {
    auth client-credentials token-url="https://idp.example.com/oauth2/token" client-id-env="B_ID" client-secret-env="B_SECRET"
}
upstream "crm" base-url="https://crm.example.com/api" {
    auth exchange token-url="https://idp.example.com/oauth2/token" client-id-env="C_ID" client-secret-env="C_SECRET" audience="https://crm.example.com"
}
upstream "jira" base-url="https://api.atlassian.com/ex/jira/cloud/rest/api/3" {
    auth user provider="atlassian"
}
upstream "open" base-url="https://open.example.com"
oauth-provider "atlassian" {
    authorize-url "https://auth.atlassian.com/authorize"
    token-url "https://auth.atlassian.com/oauth/token"
    client-id-env "A_ID"
    client-secret-env "A_SECRET"
}
access token-key-env="TOKEN_KEY" {
    api-key env="KEYS" scopes="read"
}
mcp-server "notes" url="https://notes.example.com/mcp" {
    auth exchange token-url="https://idp.example.com/oauth2/token" client-id-env="N_ID" client-secret-env="N_SECRET"
}
can list invoices {
    describe "Invoices."
    upstream "billing"
    path "/invoices"
}
can get customer {
    describe "A customer."
    upstream "crm"
    path "/customer"
}
can get issue {
    describe "An issue."
    upstream "jira"
    path "/issue"
}
can get open {
    describe "Open data."
    upstream "open"
    path "/data"
}
can find notes {
    describe "Notes."
    tool "notes" "find"
}
`);
    expect(kinds(s)).toEqual({
      list_invoices: 'client-credentials',
      get_customer: 'exchange',
      get_issue: 'user:atlassian',
      get_open: 'none',
      find_notes: 'exchange',
    });
  });
});
