/**
 * `mcp-beaver import mcp` against real servers the tests start: the reference servers
 * (server-everything over stdio and Streamable HTTP, server-filesystem, server-memory)
 * and a fixture whose tools are hard to draft (test/fixtures/mcp-import/).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, type Node } from '@bgotink/kdl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_VERBS, methodOfVerb } from '../../src/compiler/verbs.js';
import { TOOL_NAME, toolName } from '../../src/compiler/naming.js';
import { importMcp, type McpImportOptions } from '../../src/import/mcp/import-mcp.js';
import { formatMcpSummary } from '../../src/import/mcp/mcp-summary.js';
import type { McpTarget } from '../../src/import/mcp/mcp-draft.js';
import { runCli } from '../helpers/run-cli.js';
import {
  EVERYTHING,
  FILESYSTEM,
  freePort,
  MEMORY,
  NODE,
  startEverythingHttp,
  stopProcess,
} from '../mcp-upstream/upstream-helpers.js';

const ODD = join(import.meta.dirname, '..', 'fixtures', 'mcp-import', 'odd-tools-server.mjs');
const EVERYTHING_STDIO: McpTarget = { kind: 'command', program: NODE, args: [EVERYTHING, 'stdio'] };

function options(target: McpTarget, more: Partial<McpImportOptions> = {}): McpImportOptions {
  return {
    target,
    writes: false,
    protocol: 'auto',
    include: [],
    exclude: [],
    cwd: tmpdir(),
    timeoutMs: 30_000,
    ...more,
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'beaver-import-mcp-'));
}

interface Grant {
  readonly verb: string;
  readonly resource: string;
  readonly node: Node;
}

function grants(text: string): Grant[] {
  return parse(text, { as: 'document' })
    .nodes.filter((n) => n.getName() === 'can')
    .map((n) => ({
      verb: n.getArgument(0) as string,
      resource: n.getArgument(1) as string,
      node: n,
    }));
}

function child(n: Node, name: string): Node | undefined {
  return n.children?.nodes.find((c) => c.getName() === name);
}

/** The tool names the draft's grants give, as the gateway will list them. */
function toolNames(text: string): string[] {
  return grants(text).map((g) => toolName(g.verb, g.resource));
}

/** The upstream tool each grant calls. */
function upstreamTools(text: string): string[] {
  return grants(text).map((g) => child(g.node, 'tool')!.getArgument(1) as string);
}

/**
 * The draft in the grammar of spec-language.md, "Upstream MCP servers": one wrap, one
 * mcp-server node with url= or a command child, and grants with describe, a tool of
 * that server, args, and no path or sql; tool names valid and unique.
 */
function expectContractGrammar(text: string, server: string): void {
  const doc = parse(text, { as: 'document' });
  const top = doc.nodes.map((n) => n.getName());
  expect(top.filter((n) => n === 'wrap')).toHaveLength(1);
  const servers = doc.nodes.filter((n) => n.getName() === 'mcp-server');
  expect(servers).toHaveLength(1);
  const node = servers[0]!;
  expect(node.getArgument(0)).toBe(server);
  expect(server).toMatch(/^[a-z][a-z0-9-]{0,31}$/);
  const hasUrl = node.getProperty('url') !== undefined;
  expect(hasUrl).toBe(child(node, 'command') === undefined);
  expect(new Set(top)).toEqual(
    new Set(['wrap', 'mcp-server', ...(top.includes('can') ? ['can'] : [])]),
  );
  const names = toolNames(text);
  expect(new Set(names).size).toBe(names.length);
  for (const g of grants(text)) {
    expect(KNOWN_VERBS).toContain(g.verb);
    expect(toolName(g.verb, g.resource)).toMatch(TOOL_NAME);
    const children = (g.node.children?.nodes ?? []).map((c) => c.getName());
    expect(children[0]).toBe('describe');
    expect(children.filter((c) => c === 'tool')).toHaveLength(1);
    expect(child(g.node, 'tool')!.getArgument(0)).toBe(server);
    expect(children.every((c) => ['describe', 'tool', 'args'].includes(c))).toBe(true);
  }
}

describe('import mcp from server-everything over stdio', () => {
  it('drafts the read-only tools by default and every tool with --writes', async () => {
    const read = await importMcp(options(EVERYTHING_STDIO));
    const all = await importMcp(options(EVERYTHING_STDIO, { writes: true }));
    expect(read.summary).toMatchObject({ listed: 13, drafted: 9 });
    expect(read.summary.writesLeftOut).toEqual([
      'gzip-file-as-resource',
      'simulate-research-query',
      'toggle-simulated-logging',
      'toggle-subscriber-updates',
    ]);
    expect(all.summary).toMatchObject({ listed: 13, drafted: 13, writesLeftOut: [], skipped: [] });
    expect(formatMcpSummary(read.summary).split('\n')[0]).toBe(
      'drafted 9 grants from 13 tools (4 skipped: 4 that write, without --writes)',
    );
    expect(formatMcpSummary(all.summary).split('\n')[0]).toBe(
      'drafted 13 grants from 13 tools (0 skipped)',
    );
    expect(upstreamTools(read.text)).not.toContain('toggle-simulated-logging');
    expect(upstreamTools(all.text)).toContain('toggle-simulated-logging');
  });

  it('gives the same bytes on two runs', async () => {
    const [a, b] = await Promise.all([
      importMcp(options(EVERYTHING_STDIO, { writes: true })),
      importMcp(options(EVERYTHING_STDIO, { writes: true })),
    ]);
    expect(a.text).toBe(b.text);
  });

  it('names the server after the package, writes its command, and keeps to the grammar', async () => {
    const { text } = await importMcp(options(EVERYTHING_STDIO, { writes: true }));
    expectContractGrammar(text, 'everything');
    expect(text).toContain(
      `mcp-server "everything" {\n    command ${JSON.stringify(NODE)} ${JSON.stringify(EVERYTHING)} "stdio"\n}`,
    );
    expect(text).toContain('wrap "everything" version="2.0.0" {');
  });

  it('types the arguments from the inputSchema and copies the description', async () => {
    const { text } = await importMcp(options(EVERYTHING_STDIO));
    expect(text).toContain(
      [
        '// upstream tool "get-sum" (its hints: read-only)',
        'can get sum {',
        '    describe "Returns the sum of two numbers"',
        '    tool "everything" "get-sum"',
        '    args {',
        '        a "number" required=#true describe="First number."',
        '        b "number" required=#true describe="Second number."',
        '    }',
        '}',
      ].join('\n'),
    );
    expect(text).toContain(
      'count "number" default=3 min=1 max=10 describe="Number of resource links to return (1-10)."',
    );
    expect(text).toContain('enum "New York" "Chicago" "Los Angeles"');
    // A tool without arguments has no args block.
    expect(text).toContain('can get env {\n    describe');
    expect(text).not.toMatch(/tool "everything" "get-env"\n {4}args/);
  });

  it('picks verbs the hints allow: a read-only tool named trigger stays a trigger', async () => {
    const { text } = await importMcp(options(EVERYTHING_STDIO, { writes: true }));
    const tools = upstreamTools(text);
    const verbs = Object.fromEntries(grants(text).map((g, i) => [tools[i]!, g.verb]));
    expect(verbs).toMatchObject({
      echo: 'get',
      'get-sum': 'get',
      'trigger-long-running-operation': 'trigger',
      'toggle-simulated-logging': 'run',
      'gzip-file-as-resource': 'run',
    });
    for (const [tool, verb] of Object.entries(verbs))
      if (['echo', 'get-sum', 'get-env'].includes(tool)) expect(methodOfVerb(verb)).toBe('GET');
  });
});

describe('import mcp from server-filesystem and server-memory over stdio', () => {
  const files: McpTarget = { kind: 'command', program: NODE, args: [FILESYSTEM, tmpdir()] };
  const memory: McpTarget = { kind: 'command', program: NODE, args: [MEMORY] };

  it('drafts the filesystem reads, and with --writes its writes with cautious verbs', async () => {
    const read = await importMcp(options(files));
    const all = await importMcp(options(files, { writes: true }));
    expect(read.summary).toMatchObject({ listed: 14, drafted: 10 });
    expect(read.summary.writesLeftOut).toEqual([
      'create_directory',
      'edit_file',
      'move_file',
      'write_file',
    ]);
    expect(all.summary).toMatchObject({ drafted: 14, skipped: [] });
    expectContractGrammar(all.text, 'filesystem');
    expect(toolNames(read.text)).toContain('read_text_file');
    expect(toolNames(all.text)).toEqual(
      expect.arrayContaining([
        'edit_file',
        'create_directory',
        'update_move_file',
        'replace_write_file',
      ]),
    );
    expect(all.text).toContain('edits "object[]" required=#true {');
    expect(all.text).toContain('paths "string[]" required=#true min-items=1');
  });

  it('drafts the memory graph: three reads, nine grants with --writes', async () => {
    const read = await importMcp(options(memory));
    const all = await importMcp(options(memory, { writes: true }));
    expect(read.summary).toMatchObject({ listed: 9, drafted: 3 });
    expect(toolNames(read.text)).toEqual(['get_open_nodes', 'read_graph', 'search_nodes']);
    expect(all.summary).toMatchObject({ drafted: 9, skipped: [] });
    expectContractGrammar(all.text, 'memory');
    expect(toolNames(all.text)).toEqual(
      expect.arrayContaining(['create_entities', 'delete_entities', 'add_observations']),
    );
    expect(all.text).toContain(
      'observations "string[]" required=#true describe="An array of observation contents associated with the entity."',
    );
  });
});

describe('import mcp from server-everything over Streamable HTTP', () => {
  let server: ChildProcess | undefined;
  let url: URL;
  beforeAll(async () => {
    const port = await freePort();
    server = await startEverythingHttp(port);
    url = new URL(`http://127.0.0.1:${port}/mcp`);
  });
  afterAll(() => stopProcess(server));

  it('writes url= and the same grants as over stdio', async () => {
    const http = await importMcp(options({ kind: 'url', url }, { name: 'everything' }));
    const stdio = await importMcp(options(EVERYTHING_STDIO));
    expectContractGrammar(http.text, 'everything');
    expect(http.text).toContain(`mcp-server "everything" url="${url.href}"\n`);
    const grantsOf = (t: string): string => t.slice(t.indexOf('\n// upstream tool'));
    expect(grantsOf(http.text)).toBe(grantsOf(stdio.text));
    expect(http.summary).toEqual(stdio.summary);
  });

  it('names a server on this machine local, and gives the same bytes twice', async () => {
    const [a, b] = await Promise.all([
      importMcp(options({ kind: 'url', url })),
      importMcp(options({ kind: 'url', url })),
    ]);
    expect(a.text).toBe(b.text);
    expect(a.text).toContain(`mcp-server "local" url=`);
  });
});

describe('import mcp of tools that are hard to draft', () => {
  const odd: McpTarget = { kind: 'command', program: NODE, args: [ODD] };

  it('skips a tool whose input cannot be declared, and says why', async () => {
    const { text, summary } = await importMcp(options(odd));
    expect(summary.skipped).toEqual([
      {
        tool: 'bad_pattern',
        reason: expect.stringMatching(
          /^its required argument "q" cannot be declared \(its pattern "\(a\+\)\+\$" fails our safety check/,
        ),
      },
      { tool: 'free_form', reason: 'its input is a free-form object (no properties to declare)' },
      {
        tool: 'pick_one',
        reason:
          'its required argument "value" cannot be declared (it is one of several types (integer, object); a field has one)',
      },
    ]);
    expect(text).toContain(
      '// upstream tool "free_form" (its hints: read-only)\n// skipped: its input is a free-form object (no properties to declare)\n',
    );
    expect(upstreamTools(text)).toEqual(['getThing', 'get_thing', 'lookup', 'odd_option']);
    expect(formatMcpSummary(summary)).toMatch(
      /^drafted 4 grants from 8 tools \(4 skipped: 1 that writes, without --writes, 3 that no grant can express\)\n {2}bad_pattern: /,
    );
  });

  it('leaves out an optional argument with a comment, and resolves $defs', async () => {
    const { text, summary } = await importMcp(options(odd));
    expect(text).toContain(
      '        id "string" required=#true\n        // field "flag" left out: it is one of several types (integer, boolean); a field has one\n',
    );
    expect(summary.leftOut).toBe(1);
    expect(text).toContain('key "string" required=#true max-length=10 pattern="^[a-z]+$"');
    expect(text).toContain('limit "integer" min=1 max=50');
  });

  it('makes colliding names unique, escapes the description and writes the protocol', async () => {
    const { text, summary } = await importMcp(
      options(odd, { writes: true, protocol: '2026-07-28' }),
    );
    expect(summary.renames).toEqual([{ tool: 'get_thing', from: 'get_thing', to: 'get_thing_2' }]);
    expect(toolNames(text)).toEqual([
      'get_thing',
      'get_thing_2',
      'get_lookup',
      'get_odd_option',
      'update_wipe',
    ]);
    expect(text).toContain('describe "Looks up a \\"key\\".\\nSecond line\\u{7} ends here."');
    expect(text).toContain('    protocol "2026-07-28"\n');
    expect(text).toContain('wrap "odd-tools" version="3.1.4" {');
    expectContractGrammar(text, 'odd-tools');
  });
});

describe('mcp-beaver import mcp on the command line', () => {
  it('prints the summary on stderr, and -o writes the bytes stdout shows', async () => {
    const out = join(tempDir(), 'odd.mcp.kdl');
    const [a, b] = await Promise.all([
      runCli(['import', 'mcp', '--', NODE, ODD]),
      runCli(['import', 'mcp', '-o', out, '--', NODE, ODD]),
    ]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe('');
    expect(a.stdout).toBe(readFileSync(out, 'utf8'));
    expect(a.stderr.split('\n')[0]).toBe(
      'drafted 4 grants from 8 tools (4 skipped: 1 that writes, without --writes, 3 that no grant can express)',
    );
    expect(a.stderr).toContain('  writes (--writes drafts them too): wipe\n');
    expect(b.stderr).toContain(`wrote ${out}; next: mcp-beaver check ${out}`);
  });

  it('drafts a spec that mcp-beaver check accepts (needs the compiler to know mcp-server)', async () => {
    const dir = tempDir();
    const out = join(dir, 'everything.mcp.kdl');
    const r = await runCli([
      'import',
      'mcp',
      '--writes',
      '-o',
      out,
      '--',
      NODE,
      EVERYTHING,
      'stdio',
    ]);
    expect(r.code).toBe(0);
    const checked = await runCli(['check', out]);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain(`${out}: 13 tools`);
  });

  it('answers a wrong command line with exit 2 and an unreachable server with exit 1', async () => {
    const [none, ftp, creds, tag, proto, badName, protocolForOpenapi, down] = await Promise.all([
      runCli(['import', 'mcp']),
      runCli(['import', 'mcp', 'ftp://example.com/mcp']),
      runCli(['import', 'mcp', 'https://u:p@example.com/mcp']),
      runCli(['import', 'mcp', '--tag', 'x', 'https://example.com/mcp']),
      runCli(['import', 'mcp', '--protocol', '2024-01-01', 'https://example.com/mcp']),
      runCli(['import', 'mcp', '--name', 'Bad Name', 'https://example.com/mcp']),
      runCli(['import', 'openapi', 'x.json', '--protocol', 'auto']),
      runCli(['import', 'mcp', `http://127.0.0.1:${await freePort()}/mcp`]),
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the server: import mcp <url>, or import mcp -- <command>');
    expect(none.stderr).toContain('Usage: mcp-beaver import openapi');
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('must be http:// or https://');
    expect(creds.code).toBe(2);
    expect(creds.stderr).toContain('must not hold credentials');
    expect(tag.code).toBe(2);
    expect(tag.stderr).toContain('--tag is for import openapi, not import mcp');
    expect(proto.code).toBe(2);
    expect(proto.stderr).toBe(
      'mcp-beaver import: --protocol must be one of auto, 2026-07-28, 2025-11-25\n',
    );
    expect(badName.code).toBe(2);
    expect(protocolForOpenapi.code).toBe(2);
    expect(protocolForOpenapi.stderr).toContain('--protocol is for import mcp, not import openapi');
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^mcp-beaver import: no handshake: /);
  });

  it('teaches import mcp in --help with examples', async () => {
    const help = await runCli(['import', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mcp-beaver import openapi <file> [-o FILE] [options]');
    expect(help.stdout).toContain('       mcp-beaver import mcp <url> [-o FILE]');
    expect(help.stdout).toContain(
      'mcp-beaver import mcp [-o FILE] [--writes] [options] -- <command> [<arg>...]',
    );
    expect(help.stdout).toContain('--protocol auto|2026-07-28|2025-11-25');
    expect(help.stdout).toContain(
      'mcp-beaver import mcp --writes -o memory.mcp.kdl -- npx -y @modelcontextprotocol/server-memory',
    );
  });
});
