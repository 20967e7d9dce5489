import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  credentialKind,
  type CompiledSpec,
  type HttpBackend,
  type SqlBackend,
} from '../../src/compiler/descriptor.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';

// The language of issue 43 as the compiler lowers it (spec-language.md, "Many upstreams
// and databases in one spec" and "On whose behalf (upstream identity)"); its refusals are
// rows of bad-specs.test.ts.

function compiled(text: string, file = 'spec.mcp.kdl', overrides = {}): CompiledSpec {
  const result = compileSpecText(text, file, overrides);
  expect(result.diagnostics).toEqual([]);
  return result.compiled!;
}

function backendOf<T extends HttpBackend | SqlBackend>(spec: CompiledSpec, tool: string): T {
  return spec.tools.find((t) => t.name === tool)!.backend as T;
}

const TWO_OF_EACH = `wrap "t" version="1"
base-url "https://default.example.com/api/"
timeout "3s"
database env="DATABASE_URL" statement-timeout="7s"
upstream "github" base-url="https://api.github.com/" connections=8 {
    auth bearer env="GITHUB_TOKEN"
    header "Accept" "application/vnd.github+json"
    timeout "15s"
}
upstream "billing" base-url="https://billing.example.com/v2" {
    auth client-credentials token-url="https://idp.example.com/token" client-id-env="BILLING_ID" client-secret-env="BILLING_SECRET" scope="invoices.read" audience="billing"
}
database "orders" env="ORDERS_DB_URL" pool=3 statement-timeout="5s" checkout-timeout="2s"
database "analytics" env="ANALYTICS_DB_URL"
can list notes {
    describe "d"
    path "/notes"
}
can list issues {
    describe "d"
    upstream "github"
    path "/issues"
}
can list invoices {
    describe "d"
    upstream "billing"
    path "/invoices"
}
can list refunds {
    describe "d"
    upstream "billing"
    path "/refunds"
    timeout "1s"
}
can query defaults {
    describe "d"
    sql "select 1"
}
can query orders {
    describe "d"
    database "orders"
    sql "select 1"
}
can query events {
    describe "d"
    database "analytics"
    sql "select 1"
    timeout "30s"
}
`;

describe('named upstreams and databases', () => {
  it('lists the default upstream first, then the named ones in spec order, each with its own settings', () => {
    const spec = compiled(TWO_OF_EACH);
    expect(spec.upstreams.map((u) => [u.name, u.baseUrl])).toEqual([
      ['', 'https://default.example.com/api'],
      ['github', 'https://api.github.com'],
      ['billing', 'https://billing.example.com/v2'],
    ]);
    const github = spec.upstreams[1]!;
    expect(github).toMatchObject({
      auth: { kind: 'bearer', env: 'GITHUB_TOKEN' },
      headers: [['Accept', 'application/vnd.github+json']],
      timeoutMs: 15_000,
      connections: 8,
      source: { file: 'spec.mcp.kdl', line: 5, column: 1 },
    });
    expect(spec.upstreams[2]!.auth).toEqual({
      kind: 'client-credentials',
      tokenUrl: 'https://idp.example.com/token',
      clientIdEnv: 'BILLING_ID',
      clientSecretEnv: 'BILLING_SECRET',
      scope: 'invoices.read',
      audience: 'billing',
    });
  });

  it('sends an HTTP grant naming an upstream to that upstream, with its credential, headers and deadline', () => {
    const spec = compiled(TWO_OF_EACH);
    const notes = backendOf<HttpBackend>(spec, 'list_notes');
    expect(notes).toMatchObject({ upstream: '', baseUrl: 'https://default.example.com/api' });
    expect(notes.auth).toBeUndefined();
    expect(notes.timeoutMs).toBe(3_000);
    const issues = backendOf<HttpBackend>(spec, 'list_issues');
    expect(issues).toMatchObject({
      upstream: 'github',
      baseUrl: 'https://api.github.com',
      headers: [['Accept', 'application/vnd.github+json']],
      auth: { kind: 'bearer', env: 'GITHUB_TOKEN' },
      timeoutMs: 15_000,
    });
    // A named upstream without a timeout takes the gateway's default, not the top-level one.
    expect(backendOf<HttpBackend>(spec, 'list_invoices').timeoutMs).toBe(10_000);
    expect(backendOf<HttpBackend>(spec, 'list_refunds').timeoutMs).toBe(1_000);
    expect(credentialKind(backendOf<HttpBackend>(spec, 'list_invoices').auth)).toBe(
      'client-credentials',
    );
  });

  it('lists the default database first, then the named ones, and runs each sql grant on its own with its statement timeout', () => {
    const spec = compiled(TWO_OF_EACH);
    expect(spec.database).toMatchObject({ name: '', env: 'DATABASE_URL' });
    expect(spec.databases).toEqual([
      {
        name: '',
        kind: 'env',
        env: 'DATABASE_URL',
        pool: 10,
        statementTimeoutMs: 7_000,
        checkoutTimeoutMs: 1_000,
      },
      {
        name: 'orders',
        kind: 'env',
        env: 'ORDERS_DB_URL',
        pool: 3,
        statementTimeoutMs: 5_000,
        checkoutTimeoutMs: 2_000,
      },
      {
        name: 'analytics',
        kind: 'env',
        env: 'ANALYTICS_DB_URL',
        pool: 10,
        statementTimeoutMs: 10_000,
        checkoutTimeoutMs: 1_000,
      },
    ]);
    expect(backendOf<SqlBackend>(spec, 'query_defaults')).toMatchObject({
      database: '',
      timeoutMs: 7_000,
    });
    expect(backendOf<SqlBackend>(spec, 'query_orders')).toMatchObject({
      database: 'orders',
      timeoutMs: 5_000,
    });
    expect(backendOf<SqlBackend>(spec, 'query_events')).toMatchObject({
      database: 'analytics',
      timeoutMs: 30_000,
    });
  });

  it('applies serve --base-url to the default upstream only', () => {
    const spec = compiled(TWO_OF_EACH, 'spec.mcp.kdl', { baseUrl: 'http://127.0.0.1:9999/x' });
    expect(spec.upstreams.map((u) => u.baseUrl)).toEqual([
      'http://127.0.0.1:9999/x',
      'https://api.github.com',
      'https://billing.example.com/v2',
    ]);
    expect(backendOf<HttpBackend>(spec, 'list_issues').baseUrl).toBe('https://api.github.com');
  });

  it('serves a spec with only named upstreams and databases: no default is listed', () => {
    const spec = compiled(`wrap "t" version="1"
upstream "github" base-url="https://api.github.com"
database "orders" env="ORDERS_DB_URL"
can list issues {
    describe "d"
    upstream "github"
    path "/issues"
}
can query orders {
    describe "d"
    database "orders"
    sql "select 1"
}
`);
    expect(spec.upstreams.map((u) => u.name)).toEqual(['github']);
    expect(spec.database).toBeUndefined();
    expect(spec.databases.map((d) => d.name)).toEqual(['orders']);
  });

  it('refuses a set header naming the header a named upstream’s credential travels in', () => {
    const result = compileSpecText(
      `wrap "t" version="1"
upstream "billing" base-url="https://billing.example.com" {
    auth client-credentials token-url="https://idp.example.com/token" client-id-env="A" client-secret-env="B"
}
can list invoices {
    describe "d"
    upstream "billing"
    path "/invoices"
    set { header "Authorization" "Bearer x"; }
}
`,
      'spec.mcp.kdl',
    );
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([['SPEC_HEADER', 9]]);
  });
});

describe('on whose behalf', () => {
  const USER = `wrap "t" version="1"
access token-key-env="KEY" {
    api-key env="API_KEYS"
}
auth exchange token-url="http://127.0.0.1:8080/token" client-id-env="EX_ID" client-secret-env="EX_SECRET" audience="https://api.example.com" scope="a b"
base-url "https://api.example.com"
upstream "wiki" base-url="https://wiki.example.com" {
    auth user provider="wiki"
}
oauth-provider "wiki" {
    authorize-url "https://wiki.example.com/authorize"
    token-url "https://wiki.example.com/token"
    client-id-env "WIKI_ID"
    client-secret-env "WIKI_SECRET"
    scopes "read" "offline_access"
    revoke-url "https://wiki.example.com/revoke"
}
mcp-server "notes" url="https://notes.example.com/mcp" {
    auth user provider="wiki"
    proxy "http://proxy.internal:3128"
}
can list pages {
    describe "d"
    upstream "wiki"
    path "/pages"
}
can list things {
    describe "d"
    path "/things"
}
can search notes {
    describe "d"
    tool "notes" "search"
}
`;

  it('lowers auth exchange, auth user and the oauth-provider, with every credential kind', () => {
    const spec = compiled(USER);
    expect(spec.oauthProviders).toEqual([
      {
        name: 'wiki',
        authorizeUrl: 'https://wiki.example.com/authorize',
        tokenUrl: 'https://wiki.example.com/token',
        clientIdEnv: 'WIKI_ID',
        clientSecretEnv: 'WIKI_SECRET',
        scopes: ['read', 'offline_access'],
        revokeUrl: 'https://wiki.example.com/revoke',
        source: { file: 'spec.mcp.kdl', line: 10, column: 1 },
      },
    ]);
    expect(credentialKind(backendOf<HttpBackend>(spec, 'list_pages').auth)).toBe('user:wiki');
    expect(credentialKind(backendOf<HttpBackend>(spec, 'list_things').auth)).toBe('exchange');
    expect(backendOf<HttpBackend>(spec, 'list_things').auth).toEqual({
      kind: 'exchange',
      tokenUrl: 'http://127.0.0.1:8080/token',
      clientIdEnv: 'EX_ID',
      clientSecretEnv: 'EX_SECRET',
      audience: 'https://api.example.com',
      scope: 'a b',
    });
    expect(spec.mcpServers![0]!.transport).toEqual({
      kind: 'url',
      url: 'https://notes.example.com/mcp',
      headers: [],
      auth: { kind: 'user', provider: 'wiki' },
      proxy: 'http://proxy.internal:3128',
    });
  });

  it('lists every variable the new nodes read, so start-up names every missing one at once', () => {
    const spec = compiled(USER);
    expect(spec.variables!.map((v) => [v.name, v.reads, v.line])).toEqual([
      ['KEY', 'access token-key-env', 2],
      ['API_KEYS', 'access api-key', 3],
      ['EX_ID', 'auth exchange client-id-env', 5],
      ['EX_SECRET', 'auth exchange client-secret-env', 5],
      ['WIKI_ID', 'oauth-provider wiki client-id-env', 13],
      ['WIKI_SECRET', 'oauth-provider wiki client-secret-env', 14],
    ]);
    // A child's `env "NAME" "value"` sets a variable of the child; it reads none of ours.
    const stdio = compiled(`wrap "t" version="1"
mcp-server "handbook" {
    command "node" "server.js"
    env "MODE" "read-only"
}
`);
    expect(stdio.variables).toBeUndefined();
  });
});

describe('tls files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['ca.pem', 'client.pem', 'client.key'])
    writeFileSync(join(dir, name), '-----BEGIN PLACEHOLDER-----\n');

  it('resolves relative paths against the spec’s folder and keeps absolute ones', () => {
    const spec = compiled(
      `wrap "t" version="1"
upstream "internal" base-url="https://internal.example.com" {
    tls {
        ca-file "ca.pem"
        cert-file "client.pem"
        key-file "${join(dir, 'client.key')}"
    }
}
mcp-server "notes" url="https://notes.example.com/mcp" {
    tls { ca-file "ca.pem"; }
}
can list things {
    describe "d"
    upstream "internal"
    path "/things"
}
`,
      join(dir, 'spec.mcp.kdl'),
    );
    expect(spec.upstreams[0]!.tls).toEqual({
      caFile: join(dir, 'ca.pem'),
      certFile: join(dir, 'client.pem'),
      keyFile: join(dir, 'client.key'),
    });
    expect(spec.mcpServers![0]!.transport).toMatchObject({ tls: { caFile: join(dir, 'ca.pem') } });
  });

  it('refuses a tls path that is a folder', () => {
    const result = compileSpecText(
      `wrap "t" version="1"
upstream "internal" base-url="https://internal.example.com" {
    tls { ca-file "."; }
}
`,
      join(dir, 'spec.mcp.kdl'),
    );
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'upstream internal: tls: ca-file "." is not a regular file',
    ]);
  });
});
