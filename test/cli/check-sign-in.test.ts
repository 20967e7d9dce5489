import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

function spec(grantScopes: boolean): string {
  const file = join(mkdtempSync(join(tmpdir(), 'beaver-check-sign-in-')), 'sign-in.mcp.kdl');
  const text = [
    'wrap "sign-in" version="1"',
    'base-url "https://api.example.com"',
    'access token-key-env="GATEWAY_TOKEN_KEY" {',
    '    sign-in issuer="https://login.microsoftonline.com/4f1d9a/v2.0/" client-id-env="IDP_CLIENT_ID" client-secret-env="IDP_CLIENT_SECRET" {',
    ...(grantScopes ? ['        grant-scopes from-claim="roles"'] : []),
    '    }',
    '}',
    'can list items {',
    '    describe "List items."',
    '    path "/items"',
    '    scope "items:read"',
    '}',
    '',
  ].join('\n');
  writeFileSync(file, text);
  return file;
}

const LINE = /^ {2}sign-in .*$/m;

describe('mcp-beaver check on a spec with sign-in', () => {
  it('names the issuer, the redirect URI to register under a placeholder gateway, and the claim scopes come from', async () => {
    const r = await runCli(['check', spec(true)]);
    expect(r.code).toBe(0);
    expect(r.stdout.match(LINE)?.[0]).toBe(
      '  sign-in  issuer https://login.microsoftonline.com/4f1d9a/v2.0  redirect URI https://<your gateway>/callback  scopes from claim roles',
    );
  });

  it('with --public-url names the exact redirect URI, under the URL path the gateway is published at', async () => {
    const r = await runCli(['check', '--public-url', 'https://mcp.example.com/tools/', spec(true)]);
    expect(r.code).toBe(0);
    expect(r.stdout.match(LINE)?.[0]).toContain(
      'redirect URI https://mcp.example.com/tools/callback ',
    );
  });

  it('says that without grant-scopes a person signed in holds no scope', async () => {
    const r = await runCli(['check', spec(false)]);
    expect(r.code).toBe(0);
    expect(r.stdout.match(LINE)?.[0]).toMatch(
      / {2}no grant-scopes: a person signed in holds no scope$/,
    );
  });

  it('prints no sign-in line for a spec without sign-in', async () => {
    const r = await runCli(['check', 'specs/github-issues.mcp.kdl']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(LINE);
  });

  it('refuses a --public-url that is not an http(s) URL, naming the flag, with exit 2', async () => {
    const r = await runCli(['check', '--public-url', 'mcp.example.com', spec(true)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'mcp-beaver check: --public-url "mcp.example.com" is not an absolute URL\n',
    );
    expect(r.stdout).toBe('');
  });
});
