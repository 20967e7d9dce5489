import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSpecFile } from '../../src/compiler/load-spec.js';
import { toolList } from '../../src/projection/mcp/tool-definition.js';
import {
  promptDefinition,
  resourceDefinition,
  templateDefinition,
} from '../../src/projection/mcp/resource-definition.js';
import { runCli } from '../helpers/run-cli.js';

const EXAMPLES = [
  'specs/github-issues.mcp.kdl',
  'specs/payments-form.mcp.kdl',
  'specs/orders-db.mcp.kdl',
];

function tempSpec(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'beaver-cli-'));
  const file = join(dir, 'bad.mcp.kdl');
  writeFileSync(file, text);
  return file;
}

describe('mcp-beaver check', () => {
  it('exits 0 and prints one line per tool for every example spec', async () => {
    const r = await runCli(['check', ...EXAMPLES]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}list_issues +GET \/repos\/\{owner\}\/\{repo\}\/issues +read-only idempotent open-world {2}calls the default upstream as service$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}create_order +SQL read-write +write scope=orders:write {2}runs on the default database$/m,
    );
    expect(r.stdout).toContain('specs/payments-form.mcp.kdl: 9 tools');
  });

  it('exits 1 and prints every error with file:line:col, one per line', async () => {
    const file = tempSpec(
      [
        'wrap "t" version="1"',
        'base-url "https://api.example.com"',
        'can list issues {',
        '    path "/issues"',
        '    query { per_page "int" }',
        '}',
        'can frobnicate things {',
        '    path "/things"',
        '}',
      ].join('\n'),
    );
    const r = await runCli(['check', file]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual([
      `${file}:5:22: error SPEC_UNKNOWN_TYPE: grant list_issues: query field per_page: unknown type "int" (known: string, integer, number, boolean, string[], integer[], number[], boolean[], object, object[], raw)`,
      expect.stringMatching(
        new RegExp(
          `^${file}:7:5: error SPEC_UNKNOWN_VERB: grant frobnicate_things: unknown verb "frobnicate"`,
        ),
      ),
      `${file}: 2 errors`,
    ]);
  });

  it('exits 1 on a stdio command or env value with a NUL, at the line of the string that holds it', async () => {
    const file = tempSpec(
      [
        'wrap "t" version="1"',
        'mcp-server "handbook" {',
        '    command "node" "server\\u{0}.js"',
        '    env "DATA_DIR" "/srv\\u{0}/data"',
        '}',
      ].join('\n'),
    );
    const r = await runCli(['check', file]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      `${file}:3:20: error SPEC_MCP_COMMAND: mcp-server handbook: command: argument 1 holds a NUL character (\\u0000), which no process can be started with`,
      `${file}:4:20: error SPEC_MCP_COMMAND: mcp-server handbook: env DATA_DIR: the value holds a NUL character (\\u0000), which no process can be started with`,
      `${file}: 2 errors`,
    ]);
  });

  it('warns on stderr about a grant without describe but still exits 0', async () => {
    const file = tempSpec(
      'wrap "t" version="1"\nbase-url "https://x.example"\ncan get thing {\n  path "/thing"\n}\n',
    );
    const r = await runCli(['check', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${file}:3:1: warning SPEC_NO_DESCRIBE: grant get_thing`);
  });

  it('warns at a confirm only eliciting clients can answer, naming both fixes, and exits 0; clients="eliciting" quiets it', async () => {
    const text = (note: string) =>
      `wrap "t" version="1"\nbase-url "https://x.example"\naccess {\n  api-key env="K" scopes="s"\n}\ncan delete thing {\n  describe "d"\n  path "/thing"\n  confirm "Delete it?"${note}\n}\n`;
    const file = tempSpec(text(''));
    const r = await runCli(['check', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${file}:9:3: warning SPEC_CONFIRM_CLIENTS: grant delete_thing: confirm: only clients that declare elicitation can call this tool;`,
    );
    expect(r.stderr).toContain('Add `approve "<message>" by="<scope>"` to the grant');
    expect(r.stderr).toContain('or write clients="eliciting" on confirm if that is meant');
    const noted = await runCli(['check', tempSpec(text(' clients="eliciting"'))]);
    expect(noted.code, noted.stderr).toBe(0);
    expect(noted.stderr).not.toContain('SPEC_CONFIRM_CLIENTS');
  });

  it('says so plainly when the file does not exist', async () => {
    const r = await runCli(['check', 'nope.mcp.kdl']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope.mcp.kdl: no such file');
  });

  it('checks every .mcp.kdl of a folder it is given, in name order', async () => {
    const r = await runCli(['check', 'specs/']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^specs\//.test(l))).toEqual([
      'specs/demo.mcp.kdl: 12 tools (7 HTTP, 4 SQL, 1 MCP on 1 server), 4 resources, 1 prompt',
      'specs/github-issues.mcp.kdl: 6 tools',
      'specs/many-upstreams.mcp.kdl: 5 tools',
      'specs/orders-db.mcp.kdl: 6 tools',
      'specs/payments-form.mcp.kdl: 9 tools',
      'specs/upstream-mcp.mcp.kdl: 4 tools (4 MCP on 2 servers)',
    ]);
  });

  it('counts grants by kind and lists each upstream MCP server when a spec has them', async () => {
    const file = tempSpec(
      [
        'wrap "t" version="1"',
        'base-url "https://api.example.com"',
        'mcp-server "tracker" url="https://tracker.example.com/mcp"',
        'can list issues {',
        '    describe "d"',
        '    path "/issues"',
        '}',
        'can get issue {',
        '    describe "d"',
        '    path "/issues/{id}"',
        '}',
        'can search issues {',
        '    describe "d"',
        '    tool "tracker" "search_issues"',
        '}',
      ].join('\n'),
    );
    const r = await runCli(['check', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${file}: 3 tools (2 HTTP, 1 MCP on 1 server)\n`);
    expect(r.stdout).toMatch(
      /^ {2}search_issues +MCP tracker search_issues +read-only idempotent open-world {2}calls mcp-server tracker without a credential$/m,
    );
    expect(r.stdout).toMatch(
      /^ {2}mcp-server tracker {2}url https:\/\/tracker\.example\.com\/mcp {2}timeout 30s$/m,
    );
  });

  it('prints, per grant, the upstream or database it uses and the kind of credential it is called with', async () => {
    const r = await runCli(['check', 'specs/many-upstreams.mcp.kdl']);
    expect(r.code, r.stderr).toBe(0);
    const routes = r.stdout
      .split('\n')
      .filter((l) => /^ {2}\w+ {2,}.* {2}(calls|runs) /.test(l))
      .map((l) => l.replace(/^ {2}(\S+) .* {2}((calls|runs) .*)$/, '$1: $2'));
    expect(routes).toEqual([
      'list_issues: calls upstream tracker as service',
      'list_invoices: calls upstream billing as client-credentials',
      'get_page: calls upstream wiki as user:wiki',
      'query_late_orders: runs on database orders',
      'query_daily_signups: runs on database analytics',
    ]);
    expect(r.stdout).toContain(
      [
        '  upstream       tracker    https://tracker.example.com/api/v1  as service  timeout 15s',
        '  upstream       billing    https://billing.example.com/v2  as client-credentials',
        '  upstream       wiki       https://wiki.example.com/rest  as user:wiki',
        '  database       orders     env ORDERS_DB_URL  pool 10  statement-timeout 5s',
        '  database       analytics  env ANALYTICS_DB_URL  pool 4  statement-timeout 20s',
        '  oauth-provider wiki       authorize https://wiki.example.com/oauth/authorize  token https://wiki.example.com/oauth/token',
      ].join('\n'),
    );
  });

  it('says so in one line for a folder without specs, and tools refuses a folder plainly', async () => {
    const r = await runCli(['check', 'src/']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('src/: a folder with no .mcp.kdl file in it\n');
    const t = await runCli(['tools', 'specs/']);
    expect(t.code).toBe(1);
    expect(t.stderr).toBe('specs/: is a folder, not a spec file\n');
  });

  it('teaches its usage with --help', async () => {
    const r = await runCli(['check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: mcp-beaver check <spec.mcp.kdl | folder>...');
  });
});

describe('mcp-beaver check and tools with resources and prompts', () => {
  const SCOPED = [
    'wrap "t" version="1"',
    'base-url "https://api.example.com"',
    'can get thing {',
    '    describe "One thing."',
    '    path "/things/{id}" { id "integer"; }',
    '    scope "things:read"',
    '}',
    'resource "docs://t/notes" text="Notes." { scope "notes:read"; }',
    'resource "t://things/{id}" from="get_thing"',
    'prompt "look" {',
    '    argument "id" required=#true',
    '    argument "mood" default="calm" { enum "calm" "busy"; }',
    '    message "user" "Look at {id}."',
    '    message "user" resource="t://things/{id}"',
    '}',
  ].join('\n');

  it('check counts them and prints a line each: source, MIME type, embeds, scopes', async () => {
    const file = tempSpec(SCOPED);
    const r = await runCli(['check', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `${file}: 1 tool, 2 resources, 1 prompt`,
      expect.stringMatching(/^ {2}get_thing +GET \/things\/\{id\}/),
      '  resource docs://t/notes   text (text/plain)  scope=notes:read',
      '  template t://things/{id}  from get_thing (application/json)  scope=things:read',
      '  prompt   look             arguments id, mood?  embeds t://things/{id}  scope=things:read',
      expect.stringMatching(/^ {2}tools\/list {2}\(all\) {2}1 tool +\d+ bytes {2}~\d+ tokens$/),
      '',
    ]);
  });

  it('check of the demo names the handbook file, the templates and the triage prompt', async () => {
    const r = await runCli(['check', 'specs/demo.mcp.kdl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'specs/demo.mcp.kdl: 12 tools (7 HTTP, 4 SQL, 1 MCP on 1 server), 4 resources, 1 prompt\n',
    );
    expect(r.stdout).toMatch(
      /^ {2}resource docs:\/\/helpdesk\/support-handbook +file specs\/demo-docs\/support-handbook\.md \(text\/markdown\)$/m,
    );
    expect(r.stdout).toMatch(/^ {2}template helpdesk:\/\/tickets\/\{id\} +from get_ticket/m);
    expect(r.stdout).toMatch(/^ {2}prompt {3}triage-ticket +arguments id, tone\? {2}embeds /m);
  });

  it('tools --json gives the lists MCP serves beside tools; without --json a block each', async () => {
    const r = await runCli(['tools', 'specs/demo.mcp.kdl', '--json']);
    expect(r.code).toBe(0);
    const { compiled } = await compileSpecFile('specs/demo.mcp.kdl');
    const { resources, prompts } = compiled!;
    expect(JSON.parse(r.stdout)).toEqual({
      ...toolList(compiled!.tools),
      resources: resources.filter((x) => !x.template).map(resourceDefinition),
      resourceTemplates: resources.filter((x) => x.template).map(templateDefinition),
      prompts: prompts.map(promptDefinition),
    });
    const text = await runCli(['tools', tempSpec(SCOPED)]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      [
        'resource template t://things/{id} — things',
        '    application/json, from get_thing',
        '    {id}: integer',
        '',
        'prompt look — look',
        '    id: string',
        '    mood?: string  — default "calm"; one of calm, busy',
        '',
      ].join('\n'),
    );
  });
});

describe('mcp-beaver tools', () => {
  it('--json prints exactly the tools/list result the server will serve', async () => {
    for (const spec of EXAMPLES) {
      const r = await runCli(['tools', spec, '--json']);
      expect(r.code).toBe(0);
      const { compiled } = await compileSpecFile(spec);
      expect(JSON.parse(r.stdout)).toEqual(toolList(compiled!.tools));
    }
  });

  it('says in each tool block where the call goes and as whom', async () => {
    const r = await runCli(['tools', 'specs/many-upstreams.mcp.kdl']);
    expect(r.code, r.stderr).toBe(0);
    const blocks = r.stdout.split('\n\n').map((b) => b.split('\n').slice(0, 3));
    expect(blocks.slice(0, 2)).toEqual([
      [
        'list_issues — List issues  [read-only idempotent open-world]',
        '  Open issues of one project, newest first.',
        '  calls upstream tracker as service',
      ],
      [
        'list_invoices — List invoices  [read-only idempotent open-world]',
        '  Invoices of one customer, newest first.',
        '  calls upstream billing as client-credentials',
      ],
    ]);
    expect(r.stdout).toContain('  runs on database analytics\n');
  });

  it('prints a readable list of tools and their arguments without --json', async () => {
    const r = await runCli(['tools', 'specs/orders-db.mcp.kdl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('query_open_orders — Query open orders');
    expect(r.stdout).toMatch(/customer_id: integer/);
  });

  it('shows every rule of each tool without --json: hints, allowlists, patterns, bounds, defaults', async () => {
    const r = await runCli(['tools', 'specs/github-issues.mcp.kdl']);
    expect(r.code).toBe(0);
    const block = r.stdout.split('\n\n')[0]!.split('\n');
    expect(block).toEqual([
      'list_issues — List issues  [read-only idempotent open-world]',
      '  List issues of a repository, most recently created first. Pull requests are included by the upstream API.',
      '  calls the default upstream as service',
      '    owner: string  — one of acme, acme-labs',
      '    repo: string  — pattern ^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$',
      '    state?: string  — one of open, closed, all; default "open"; Issue state.',
      '    labels?: array of string (length ≤50)  — ≤10 items; Only issues carrying all of these labels.',
      '    assignee?: string  — length ≤39; Login of the assignee, `none` for unassigned, `*` for any.',
      '    creator?: string  — pattern ^[A-Za-z0-9-]{1,39}$; Login of the issue author.',
      '    sort?: string  — one of created, updated, comments; default "created"',
      '    direction?: string  — one of asc, desc; default "desc"',
      '    since?: string  — format date-time; Only issues updated at or after this time (ISO 8601).',
      '    search?: string  — length 1..256; Free-text search in titles and bodies.',
      '    per_page?: integer  — 1..100; default 30',
      '    page?: integer  — 1..100; default 1',
    ]);
    expect(r.stdout).toContain('update_issue — Update issue  [destructive open-world]');
  });

  it('shows the fields of an object argument below it, indented', async () => {
    const r = await runCli(['tools', 'specs/payments-form.mcp.kdl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        '    address?: object',
        '      line1?: string  — length ≤200',
        '      city?: string  — length ≤100',
        '      postal_code?: string  — length ≤20',
        '      country?: string  — pattern ^[A-Z]{2}$; ISO 3166-1 alpha-2 code.',
      ].join('\n'),
    );
  });

  it('exits 1 with the errors when the spec does not compile', async () => {
    const file = tempSpec('wrap "t" version="1"\ncan list things {\n  path "/things"\n}\n');
    const r = await runCli(['tools', file, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('SPEC_NO_BASE_URL');
  });
});

describe('mcp-beaver', () => {
  it('lists its commands with --help and refuses unknown commands', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('check <spec>');
    const bad = await runCli(['frob']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown command "frob"');
  });
});
