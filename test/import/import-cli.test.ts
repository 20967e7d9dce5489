import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { ImportError } from '../../src/import/openapi/load-document.js';
import { draft, EXAMPLES, FIXTURES } from './draft-helpers.js';

const SHOP = join(FIXTURES, 'shop', 'openapi.yaml');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'beaver-import-cli-'));
}

describe('mcp-beaver import openapi', () => {
  it(
    'writes the draft with -o, the summary on stderr, and check accepts the file',
    { timeout: 60_000 },
    async () => {
      const out = join(tempDir(), 'shop.mcp.kdl');
      const r = await runCli(['import', 'openapi', SHOP, '--writes', '-o', out]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe('imported 10 of 12 operations; 2 skipped');
      expect(r.stderr).toContain(`wrote ${out}; next: mcp-beaver check ${out}`);
      const checked = await runCli(['check', out]);
      expect(checked.code).toBe(0);
      expect(checked.stdout).toContain(`${out}: 10 tools`);
      expect(checked.stderr).toBe('');
    },
  );

  it(
    'prints the draft on stdout without -o, the same bytes as -o writes',
    { timeout: 60_000 },
    async () => {
      const file = join(EXAMPLES, '3.0', 'yaml', 'petstore.yaml');
      const out = join(tempDir(), 'pet.mcp.kdl');
      const [a, b] = await Promise.all([
        runCli(['import', 'openapi', file, '--tag', 'store', '--include', 'GET /user/*']),
        runCli([
          'import',
          'openapi',
          file,
          '--tag',
          'store',
          '--include',
          'GET /user/*',
          '-o',
          out,
        ]),
      ]);
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(a.stdout).toBe(readFileSync(out, 'utf8'));
      expect(a.stdout).toContain('can get store-order {');
      expect(a.stdout).toContain(
        '// GET /user/login (loginUser)\n// skipped: its query parameter password',
      );
      expect(a.stdout).not.toContain('can get pet {');
    },
  );

  it('says in one line why a document cannot be imported', async () => {
    const dir = tempDir();
    const notYaml = join(dir, 'broken.yaml');
    writeFileSync(notYaml, 'openapi: 3.0.0\npaths: {\n  /x: [unclosed\n');
    const notOpenApi = join(dir, 'package.json');
    writeFileSync(notOpenApi, '{"name": "not-an-api", "version": "1.0.0"}');
    const oldSwagger = join(dir, 'old.json');
    writeFileSync(oldSwagger, '{"swagger": "1.2", "apis": []}');
    const cases: [string, string][] = [
      [join(dir, 'missing.json'), `${join(dir, 'missing.json')}: no such file`],
      [notYaml, `${notYaml}: not JSON or YAML (`],
      [
        notOpenApi,
        `${notOpenApi}: not an OpenAPI document (no "openapi: 3.x" or "swagger: \\"2.0\\"" at the top)`,
      ],
      [
        oldSwagger,
        `${oldSwagger}: OpenAPI version "1.2" is not one we import (3.0, 3.1 or Swagger 2.0)`,
      ],
      [
        join(FIXTURES, 'broken-ref.yaml'),
        `${join(FIXTURES, 'broken-ref.yaml')}: a $ref points to parameters/missing.yaml, which does not exist`,
      ],
    ];
    for (const [file, message] of cases) {
      const err = await draft(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, file).toBeInstanceOf(ImportError);
      expect((err as ImportError).exitCode).toBe(1);
      expect((err as ImportError).message.startsWith(message), (err as Error).message).toBe(true);
      expect((err as ImportError).message).not.toContain('\n');
    }
  });

  it('exits 1 with that line on stderr and no stack trace', async () => {
    const broken = join(FIXTURES, 'broken-ref.yaml');
    const r = await runCli(['import', 'openapi', broken, '-o', join(tempDir(), 'never.mcp.kdl')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mcp-beaver import: ${broken}: a $ref points to parameters/missing.yaml, which does not exist\n`,
    );
  });

  it("exits 1 naming the document's tags when --tag or --include selects nothing", async () => {
    const none = await runCli(['import', 'openapi', SHOP, '--tag', 'nosuchtag']);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(
      /^mcp-beaver import: no operation matches the filters; the document's tags: "[^"]+" \(\d+\)/,
    );
    expect(none.stderr).toContain('(--list-tags lists them all)');
    expect(none.stderr.trimEnd()).not.toContain('\n');
    const writesOnly = await draft(SHOP, { include: ['POST *'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(writesOnly).toBeInstanceOf(ImportError);
    expect((writesOnly as ImportError).message).toMatch(/all of them writes: add --writes/);
  });

  it("lists the document's tags with their operation counts under --list-tags", async () => {
    const file = join(EXAMPLES, '3.0', 'yaml', 'petstore.yaml');
    const r = await runCli(['import', 'openapi', file, '--list-tags']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    expect(rows).toEqual(
      [
        ['8', 'pet'],
        ['4', 'store'],
        ['8', 'user'],
      ].sort((a, b) => Number(b[0]) - Number(a[0]) || (a[1]! < b[1]! ? -1 : 1)),
    );
  });

  it('answers a wrong command line with the help and exit 2', async () => {
    const noFormat = await runCli(['import']);
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toContain(
      'name exactly one OpenAPI document: mcp-beaver import openapi <file>',
    );
    expect(noFormat.stderr).toContain('Usage: mcp-beaver import openapi');
    const badUrl = await runCli(['import', 'openapi', SHOP, '--base-url', 'ftp://x']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toBe(
      'mcp-beaver import: --base-url must be an http:// or https:// URL without query or fragment\n',
    );
  });

  it(
    'writes one toolset per tag with --toolsets=tag, the same bytes twice, and check accepts the draft',
    { timeout: 60_000 },
    async () => {
      const out = join(tempDir(), 'shop.mcp.kdl');
      const [a, b] = await Promise.all([
        runCli(['import', 'openapi', SHOP, '--writes', '--toolsets=tag']),
        runCli(['import', 'openapi', SHOP, '--writes', '--toolsets', 'tag', '-o', out]),
      ]);
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(a.stdout).toBe(readFileSync(out, 'utf8'));
      expect(a.stdout).toMatch(/\ntoolset "catalogue" \{\n/);
      expect(a.stdout).toMatch(/\ntoolset "orders" \{\n/);
      expect(a.stderr).toMatch(
        /^wrote 2 toolsets, one per tag; the largest: orders \(\d+ tools\)$/m,
      );
      const checked = await runCli(['check', out]);
      expect(checked.code).toBe(0);
      expect(checked.stderr).toBe('');
    },
  );

  it(
    'writes the upstream as a named one with --upstream, every grant naming it, and check accepts the draft',
    { timeout: 60_000 },
    async () => {
      const out = join(tempDir(), 'shop.mcp.kdl');
      const r = await runCli([
        'import',
        'openapi',
        SHOP,
        '--writes',
        '--upstream',
        'shop',
        '-o',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const text = readFileSync(out, 'utf8');
      expect(text).toContain(
        '\nupstream "shop" base-url="https://eu.shop.example.com/v2" {\n    auth query "api_key" env="ACME_SHOP_API_KEY"\n}\n',
      );
      expect(text).not.toMatch(/^base-url /m);
      expect(text).not.toMatch(/^auth /m);
      const grants = text.match(/^can /gm)!.length;
      expect(text.match(/^ {4}upstream "shop"$/gm)).toHaveLength(grants);
      const checked = await runCli(['check', out]);
      expect(checked.code, checked.stdout).toBe(0);
      expect(checked.stderr).toBe('');
      expect(checked.stdout).toContain('calls upstream shop as service');
      expect(checked.stdout).not.toContain('the default upstream');
    },
  );

  it('refuses an --upstream name the language would refuse, and --upstream for import mcp, with exit 2', async () => {
    const [bad, mcp] = await Promise.all([
      runCli(['import', 'openapi', SHOP, '--upstream', 'Shop API']),
      runCli(['import', 'mcp', '--upstream', 'shop', 'https://example.com/mcp']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'mcp-beaver import: --upstream names the upstream in the spec: "Shop API" must match ^[a-z][a-z0-9-]{0,31}$\n',
    );
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toContain('--upstream is for import openapi, not import mcp');
  });

  it('refuses --toolsets with a value other than tag, or for import mcp, with exit 2', async () => {
    const [other, empty, missing, mcp] = await Promise.all([
      runCli(['import', 'openapi', SHOP, '--toolsets=tags']),
      runCli(['import', 'openapi', SHOP, '--toolsets=']),
      runCli(['import', 'openapi', SHOP, '--toolsets']),
      runCli(['import', 'mcp', '--toolsets=tag', 'https://example.com/mcp']),
    ]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toBe(
      'mcp-beaver import: --toolsets takes one value, tag (a toolset per tag): "tags" is not one\n',
    );
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--toolsets takes one value, tag');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--toolsets');
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toContain('--toolsets is for import openapi, not import mcp');
  });

  it(
    'teaches the command in --help and lists it in the main help',
    { timeout: 60_000 },
    async () => {
      const [help, main] = await Promise.all([runCli(['import', '--help']), runCli(['--help'])]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: mcp-beaver import openapi <file> [-o FILE] [options]');
      expect(help.stdout).toContain('GET /repos/{owner}/{repo}/issues becomes list_repo_issues');
      expect(help.stdout).toContain('--writes');
      expect(help.stdout).toContain('--toolsets tag');
      expect(help.stdout).toContain('tag "Pull Requests"\n    becomes toolset "pull-requests"');
      expect(main.stdout).toContain('import openapi <file>  Draft a guarded spec');
    },
  );
});
