/**
 * `mcp-beaver check` prints how large each tools/list is, the whole spec's and each
 * toolset's, and warns above 128 tools and above `limits list-tokens`
 * (spec-language.md, "How large a list is: `mcp-beaver check`"). The numbers are held to
 * the bytes a real gateway serves.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_WARNING_CODES } from '../../src/compiler/diagnostics.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import { runCli } from '../helpers/run-cli.js';

const READ_KEY = 'check-sizes-read-key';
const ALL_KEY = 'check-sizes-all-key';

const dir = mkdtempSync(join(tmpdir(), 'beaver-check-sizes-'));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** `can get thing-<i>` grants, each described (so `check` has no other warning to say). */
function grants(count: number, from = 1): string {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return `can get thing-${i} {
    describe "Get thing ${i} by its id."
    path "/things${i}/{id}" {
        id "integer" min=1
    }
}`;
  }).join('\n');
}

/** A grant that `get_thing_*` does not match. */
const ODD_ONE = `can list issues {
    describe "List issues."
    path "/issues"
}`;

const HEADER = `wrap "sizes" version="1.0.0"
base-url "https://api.example.invalid"`;

// Scopes make a reader see less than the whole list: check counts a caller holding every one.
const SIZES_SPEC = `${HEADER}
access {
    api-key env="READ_KEY" scopes="things:read"
    api-key env="ALL_KEY" scopes="things:read things:write"
}
can list issues {
    describe "List issues, newest first: ünïcödé counts in bytes."
    path "/issues"
    query {
        state "string" default="open" { enum "open" "closed" "all"; }
    }
    scope "things:read"
    max-bytes 4096
}
can create issue-comment {
    describe "Comment on an issue."
    path "/issues/{number}/comments" {
        number "integer" min=1
    }
    body {
        body "string" required=#true
    }
    scope "things:write"
}
${grants(3)}
toolset "triage" {
    describe "Read issues and comment on them."
    tools "create_issue_comment" "list_issues"
}
toolset "things" {
    tools "get_thing_*"
}
`;

interface Row {
  readonly label: string;
  readonly tools: number;
  readonly bytes: number;
  readonly tokens: number;
}

const ROW =
  /^ {2}(tools\/list {2}\(all\)|toolset [a-z][a-z0-9-]*) +(\d+) tools? +(\d+) bytes +~(\d+) tokens$/;

function rows(stdout: string): Row[] {
  return stdout.split('\n').flatMap((line) => {
    const m = ROW.exec(line);
    return m
      ? [{ label: m[1]!, tools: Number(m[2]), bytes: Number(m[3]), tokens: Number(m[4]) }]
      : [];
  });
}

/** The `result` of a 2025-11-25 tools/list on `path`, as the exact text the gateway wrote. */
async function servedToolsList(gw: TestGateway, key: string, path = '/mcp'): Promise<string> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LEGACY,
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await res.text();
  const parsed = JSON.parse(text) as { result: unknown };
  // The result's own bytes inside the JSON-RPC envelope, cut out of what was sent.
  const start = text.indexOf('"result":') + '"result":'.length;
  const result = text.slice(start, text.lastIndexOf('}'));
  expect(JSON.parse(result)).toEqual(parsed.result);
  return result;
}

describe('mcp-beaver check: the size of each tools/list', () => {
  let gw: TestGateway;
  let file: string;

  beforeAll(async () => {
    file = write('sizes.mcp.kdl', SIZES_SPEC);
    gw = await startGateway(readFileSync(file, 'utf8'), {
      file,
      env: { READ_KEY, ALL_KEY },
    });
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('prints the whole spec and then each toolset in spec order, after the summary', async () => {
    const r = await runCli(['check', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${file}: 5 tools`);
    expect(rows(r.stdout).map((row) => [row.label, row.tools])).toEqual([
      ['tools/list  (all)', 5],
      ['toolset triage', 2],
      ['toolset things', 3],
    ]);
    // The table closes the output, its columns aligned.
    const table = lines.slice(-3);
    expect(table.map((l) => rows(l).length)).toEqual([1, 1, 1]);
    expect(new Set(table.map((l) => l.search(/\d tools? /))).size).toBe(1);
    expect(new Set(table.map((l) => l.indexOf(' bytes'))).size).toBe(1);
    expect(new Set(table.map((l) => l.indexOf(' tokens'))).size).toBe(1);
  });

  it("gives /mcp's bytes exactly as the gateway serves them to a caller holding every scope", async () => {
    const r = await runCli(['check', file]);
    const [all] = rows(r.stdout);
    const served = await servedToolsList(gw, ALL_KEY);
    expect(all!.bytes).toBe(Buffer.byteLength(served, 'utf8'));
    expect(all!.tokens).toBe(Math.ceil(all!.bytes / 4));
    // A reader holding fewer scopes is served less than check reports.
    const reader = await servedToolsList(gw, READ_KEY);
    expect(Buffer.byteLength(reader, 'utf8')).toBeLessThan(all!.bytes);
  });

  it("gives each toolset's bytes exactly as its URL serves them to a caller holding every scope", async () => {
    const r = await runCli(['check', file]);
    const [, triage, things] = rows(r.stdout);
    for (const [row, path] of [
      [triage!, '/mcp/triage'],
      [things!, '/mcp/things'],
    ] as const) {
      const served = await servedToolsList(gw, ALL_KEY, path);
      expect(row.bytes).toBe(Buffer.byteLength(served, 'utf8'));
      expect(row.tokens).toBe(Math.ceil(row.bytes / 4));
    }
    // The toolset names its members out of spec order; the list keeps the spec's.
    const listed = JSON.parse(await servedToolsList(gw, ALL_KEY, '/mcp/triage')) as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((t) => t.name)).toEqual(['list_issues', 'create_issue_comment']);
  });

  it('prints no table with --quiet', async () => {
    const r = await runCli(['check', '--quiet', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
  });
});

describe('mcp-beaver check: warnings for lists too large for clients', () => {
  it('warns, exit 0, when /mcp lists 129 tools, and suggests toolsets when the spec has none', async () => {
    const file = write('many.mcp.kdl', `${HEADER}\n${grants(129)}\n`);
    const r = await runCli(['check', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${file}:1:1: warning LIST_TOOL_COUNT: /mcp lists 129 tools: some clients refuse more than 128 tools (VS Code, JetBrains, Copilot CLI); serve toolsets\n`,
    );
  });

  it('warns at the toolset of 129 tools, and /mcp without the advice it already follows', async () => {
    const text = `${HEADER}\nlimits list-tokens=1000000\n${grants(129)}\n${ODD_ONE}\ntoolset "most" {\n    tools "get_thing_*"\n}\ntoolset "few" {\n    tools "get_thing_9"\n}\n`;
    const file = write('many-toolset.mcp.kdl', text);
    const most = lineOf(text, 'toolset "most" {');
    const r = await runCli(['check', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(rows(r.stdout).find((row) => row.label === 'toolset most')!.tools).toBe(129);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `${file}:1:1: warning LIST_TOOL_COUNT: /mcp lists 130 tools: some clients refuse more than 128 tools (VS Code, JetBrains, Copilot CLI)`,
      `${file}:${most}:1: warning LIST_TOOL_COUNT: toolset most lists 129 tools: some clients refuse more than 128 tools (VS Code, JetBrains, Copilot CLI)`,
    ]);
  });

  it('says nothing at 128 tools and at exactly list-tokens', async () => {
    const probe = write('probe.mcp.kdl', `${HEADER}\nlimits list-tokens=1000000\n${grants(128)}\n`);
    const first = await runCli(['check', probe]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    const [all] = rows(first.stdout);
    expect(all!.tools).toBe(128);
    const exact = write(
      'exact.mcp.kdl',
      `${HEADER}\nlimits list-tokens=${all!.tokens}\n${grants(128)}\n`,
    );
    const r = await runCli(['check', exact]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('warns above list-tokens for /mcp and for each toolset above it, even with --quiet', async () => {
    const probe = write('tokens-probe.mcp.kdl', `${HEADER}\n${grants(6)}\n`);
    const [all] = rows((await runCli(['check', probe])).stdout);
    const limit = all!.tokens - 1;
    const file = write(
      'tokens.mcp.kdl',
      `${HEADER}\nlimits list-tokens=${limit}\n${grants(6)}\ntoolset "small" {\n    tools "get_thing_1"\n}\n`,
    );
    const r = await runCli(['check', '--quiet', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `${file}:1:1: warning LIST_TOKENS: /mcp: tools/list is ~${all!.tokens} tokens (${all!.bytes} bytes), above limits list-tokens=${limit}: a client spends them before the first question\n`,
    );
    const lowText = `${HEADER}\nlimits list-tokens=10\n${grants(2)}\ntoolset "one" {\n    tools "get_thing_1"\n}\n`;
    const low = write('tokens-low.mcp.kdl', lowText);
    const both = await runCli(['check', '--quiet', low]);
    expect(both.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${escape(low)}:1:1: warning LIST_TOKENS: /mcp: tools/list is ~\\d+ tokens \\(\\d+ bytes\\), above limits list-tokens=10: `,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(low)}:${lineOf(lowText, 'toolset "one" {')}:1: warning LIST_TOKENS: toolset one: tools/list is ~\\d+ tokens \\(\\d+ bytes\\), above limits list-tokens=10: `,
        ),
      ),
    ]);
  });

  it('on a folder, prints a table per spec and names the spec in each warning', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'beaver-check-folder-'));
    writeFileSync(join(folder, 'a.mcp.kdl'), `${HEADER}\n${grants(2)}\n`);
    writeFileSync(
      join(folder, 'b.mcp.kdl'),
      `${HEADER}\nlimits list-tokens=1000000\n${grants(129)}\n`,
    );
    const r = await runCli(['check', folder]);
    expect(r.code, r.stderr).toBe(0);
    expect(rows(r.stdout).map((row) => row.tools)).toEqual([2, 129]);
    expect(r.stderr).toBe(
      `${join(folder, 'b.mcp.kdl')}:1:1: warning LIST_TOOL_COUNT: /mcp lists 129 tools: some clients refuse more than 128 tools (VS Code, JetBrains, Copilot CLI); serve toolsets\n`,
    );
  });
});

describe('the manual lists the codes of these warnings', () => {
  const manual = readFileSync(new URL('../../docs/spec-language.md', import.meta.url), 'utf8');
  const warnings = manual.slice(manual.indexOf('Warnings are printed by `check`'));

  it.each(Object.keys(CHECK_WARNING_CODES))('documents %s beside the load warnings', (code) => {
    expect(warnings).toContain(`| \`${code}\` |`);
  });
});

/** The 1-based line of `text` that is `line`. */
function lineOf(text: string, line: string): number {
  return text.split('\n').indexOf(line) + 1;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
