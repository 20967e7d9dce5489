import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

// Names no machine sets, so that the child's environment is what each test gives it.
const [TOKEN, DB, READ_KEYS, ADMIN_KEYS, CHILD, UNUSED] = [
  'API_TOKEN',
  'DATABASE_URL',
  'READ_KEYS',
  'ADMIN_KEYS',
  'NOTES_TOKEN',
  'UNUSED_TOKEN',
].map((name) => `BEAVER_ENV_TEST_${name}`) as [string, string, string, string, string, string];
const SECRET = 'sekrit-4f1d9a-never-printed';

/** A spec reading five variables at start-up (lines 3, 4, 6, 7, 12) and naming one it never reads (15). */
const SPEC = [
  'wrap "env-test" version="1"', // 1
  'base-url "https://api.example.com"', // 2
  `auth bearer env="${TOKEN}"`, // 3
  `database env="${DB}"`, // 4
  'access {', // 5
  `    api-key env="${READ_KEYS}" scopes="read"`, // 6
  `    api-key env="${ADMIN_KEYS}" scopes="read write"`, // 7
  '}', // 8
  'mcp-server "notes" {', // 9
  '    command "node" "notes-server.mjs"', // 10
  '    env "LOG_LEVEL" "warn"', // 11
  `    env "NOTES_TOKEN" from-env="${CHILD}"`, // 12
  '}', // 13
  'mcp-server "idle" url="https://idle.example.com/mcp" {', // 14
  `    auth bearer env="${UNUSED}"`, // 15
  '}', // 16
  'can list items {',
  '    describe "List items."',
  '    path "/items"',
  '    scope "read"',
  '}',
  'can query orders {',
  '    describe "Count orders."',
  '    sql "SELECT count(*) FROM orders"',
  '    scope "read"',
  '}',
  'can search notes {',
  '    describe "Search notes."',
  '    tool "notes" "search"',
  '    args {',
  '        text "string" required=#true max-length=100',
  '    }',
  '    scope "read"',
  '}',
  '',
].join('\n');

function specFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'beaver-env-')), 'env.mcp.kdl');
  writeFileSync(file, SPEC);
  return file;
}

describe('start-up with environment variables missing', () => {
  it('serve fails once, naming every missing variable with the line of the spec that names it', async () => {
    const file = specFile();
    // One of them is set: it is neither listed nor printed.
    const r = await runCli(['serve', file, '--http', '127.0.0.1:0', '--no-watch'], {
      env: { [ADMIN_KEYS]: SECRET },
    });
    expect(r.code).toBe(1);
    const message = r.stderr.slice(r.stderr.indexOf('mcp-beaver serve:'));
    expect(message.split('\n').slice(0, 6)).toEqual([
      'mcp-beaver serve: 4 environment variables the spec reads at start-up are not set:',
      expect.stringMatching(new RegExp(`^  ${TOKEN} +${file}:3 +auth bearer$`)),
      expect.stringMatching(new RegExp(`^  ${DB} +${file}:4 +database$`)),
      expect.stringMatching(new RegExp(`^  ${READ_KEYS} +${file}:6 +access api-key$`)),
      expect.stringMatching(
        new RegExp(`^  ${CHILD} +${file}:12 +mcp-server notes env NOTES_TOKEN from-env$`),
      ),
      `set them and start again (\`mcp-beaver check --env ${file}\` lists every variable a spec reads)`,
    ]);
    expect(r.stderr).not.toContain(ADMIN_KEYS);
    // The idle server is called by no grant: start-up never reads its variable.
    expect(r.stderr).not.toContain(UNUSED);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });
});

describe('mcp-beaver check --env', () => {
  it('lists every variable the spec names, with its line, what reads it and whether it is set, and exits 1 for the unset ones start-up reads', async () => {
    const file = specFile();
    const r = await runCli(['check', '--env', '--quiet', file], {
      env: { [TOKEN]: SECRET, [ADMIN_KEYS]: SECRET },
    });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      `${file}: 6 environment variables, 3 that start-up reads not set`,
      expect.stringMatching(/^ {2}variable +line +read by +here$/),
      expect.stringMatching(new RegExp(`^  ${TOKEN} +3 +auth bearer +set$`)),
      expect.stringMatching(new RegExp(`^  ${DB} +4 +database +not set$`)),
      expect.stringMatching(new RegExp(`^  ${READ_KEYS} +6 +access api-key +not set$`)),
      expect.stringMatching(new RegExp(`^  ${ADMIN_KEYS} +7 +access api-key +set$`)),
      expect.stringMatching(
        new RegExp(`^  ${CHILD} +12 +mcp-server notes env NOTES_TOKEN from-env +not set$`),
      ),
      expect.stringMatching(
        new RegExp(
          `^  ${UNUSED} +15 +mcp-server idle auth bearer +not set \\(not read: nothing in the spec uses it\\)$`,
        ),
      ),
      `${file}:4:10: error ENV_UNSET: database: ${DB} is not set, and start-up reads it`,
      `${file}:6:13: error ENV_UNSET: access api-key: ${READ_KEYS} is not set, and start-up reads it`,
      `${file}:12:23: error ENV_UNSET: mcp-server notes env NOTES_TOKEN from-env: ${CHILD} is not set, and start-up reads it`,
    ]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('exits 0 when every variable start-up reads is set, even if one that nothing reads is not', async () => {
    const file = specFile();
    const env = Object.fromEntries(
      [TOKEN, DB, READ_KEYS, ADMIN_KEYS, CHILD].map((v) => [v, SECRET]),
    );
    const r = await runCli(['check', '--env', '--quiet', file], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${file}: 6 environment variables\n`);
    expect(r.stdout).not.toContain('ENV_UNSET');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('says in its help that it exits 1 when a variable start-up needs is unset', async () => {
    const r = await runCli(['check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--env +List the environment variables the spec reads; exit 1 when/);
  });

  it('without --env, check needs no variable and prints none', async () => {
    const r = await runCli(['check', specFile()]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(TOKEN);
  });
});

describe('the variables of sign-in', () => {
  const [KEY, ID, SECRET_VAR] = ['TOKEN_KEY', 'IDP_CLIENT_ID', 'IDP_CLIENT_SECRET'].map(
    (name) => `BEAVER_ENV_TEST_${name}`,
  ) as [string, string, string];

  /** `access token-key-env` on line 3, sign-in's client id and secret on line 4. */
  function signInSpec(signIn: boolean): string {
    const file = join(mkdtempSync(join(tmpdir(), 'beaver-env-')), 'sign-in.mcp.kdl');
    const access = signIn
      ? [
          `access token-key-env="${KEY}" {`, // 3
          `    sign-in issuer="https://login.example.com/tenant/v2.0" client-id-env="${ID}" client-secret-env="${SECRET_VAR}" {`, // 4
          '        grant-scopes from-claim="roles"',
          '    }',
          '}',
        ]
      : [`access token-key-env="${KEY}" {`, `    api-key env="${READ_KEYS}" scopes="read"`, '}'];
    const text = [
      'wrap "sign-in-env" version="1"',
      'base-url "https://api.example.com"',
      ...access,
      'can list items {',
      '    describe "List items."',
      '    path "/items"',
      '    scope "read"',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, text);
    return file;
  }

  it('check --env reads the token key and the client id and secret at the provider when access has sign-in', async () => {
    const file = signInSpec(true);
    const r = await runCli(['check', '--env', '--quiet', file], { env: { [ID]: SECRET } });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      `${file}: 3 environment variables, 2 that start-up reads not set`,
      expect.stringMatching(/^ {2}variable +line +read by +here$/),
      expect.stringMatching(new RegExp(`^  ${KEY} +3 +access token-key-env +not set$`)),
      expect.stringMatching(new RegExp(`^  ${ID} +4 +access sign-in client-id-env +set$`)),
      expect.stringMatching(
        new RegExp(`^  ${SECRET_VAR} +4 +access sign-in client-secret-env +not set$`),
      ),
      `${file}:3:8: error ENV_UNSET: access token-key-env: ${KEY} is not set, and start-up reads it`,
      expect.stringMatching(
        new RegExp(
          `^${file}:4:\\d+: error ENV_UNSET: access sign-in client-secret-env: ${SECRET_VAR} is not set, and start-up reads it$`,
        ),
      ),
    ]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('serve stops before anything opens, naming each sign-in variable that is not set', async () => {
    const file = signInSpec(true);
    const r = await runCli(['serve', file, '--http', '127.0.0.1:0', '--no-watch'], {
      env: { [SECRET_VAR]: SECRET },
    });
    expect(r.code).toBe(1);
    const message = r.stderr.slice(r.stderr.indexOf('mcp-beaver serve:'));
    expect(message.split('\n').slice(0, 3)).toEqual([
      'mcp-beaver serve: 2 environment variables the spec reads at start-up are not set:',
      expect.stringMatching(new RegExp(`^  ${KEY} +${file}:3 +access token-key-env$`)),
      expect.stringMatching(new RegExp(`^  ${ID} +${file}:4 +access sign-in client-id-env$`)),
    ]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('a token key without sign-in is listed as read by nothing and never fails the check', async () => {
    const file = signInSpec(false);
    const r = await runCli(['check', '--env', '--quiet', file], { env: { [READ_KEYS]: SECRET } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^  ${KEY} +3 +access token-key-env +not set \\(not read: nothing in the spec uses it\\)$`,
        'm',
      ),
    );
    expect(r.stdout).not.toContain('ENV_UNSET');
  });
});
