import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSpecFile } from '../../src/spec/load-spec.js';
import { toolList } from '../../src/projection/mcp/tool-definition.js';
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
      /^ {2}list_issues +GET \/repos\/\{owner\}\/\{repo\}\/issues +read-only idempotent open-world$/m,
    );
    expect(r.stdout).toMatch(/^ {2}create_order +SQL read-write +write scope=orders:write$/m);
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

  it('warns on stderr about a grant without describe but still exits 0', async () => {
    const file = tempSpec(
      'wrap "t" version="1"\nbase-url "https://x.example"\ncan get thing {\n  path "/thing"\n}\n',
    );
    const r = await runCli(['check', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${file}:3:1: warning SPEC_NO_DESCRIBE: grant get_thing`);
  });

  it('says so plainly when the file does not exist', async () => {
    const r = await runCli(['check', 'nope.mcp.kdl']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope.mcp.kdl: no such file');
  });

  it('teaches its usage with --help', async () => {
    const r = await runCli(['check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: mcp-beaver check <spec.mcp.kdl>');
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

  it('prints a readable list of tools and their arguments without --json', async () => {
    const r = await runCli(['tools', 'specs/orders-db.mcp.kdl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('query_open_orders — Query open orders');
    expect(r.stdout).toMatch(/customer_id: integer/);
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
