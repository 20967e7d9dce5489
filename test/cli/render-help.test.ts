import { describe, expect, it } from 'vitest';
import { APPROVALS_COMMAND } from '../../src/cli/commands/approvals-command.js';
import { CONNECTIONS_COMMAND } from '../../src/cli/commands/connections-command.js';
import { CALL_COMMAND } from '../../src/cli/commands/call-command.js';
import { CHECK_COMMAND } from '../../src/cli/commands/check-command.js';
import { DEMO_COMMAND } from '../../src/cli/commands/demo-command.js';
import { DISCOVER_COMMAND } from '../../src/cli/commands/discover-command.js';
import { IMPORT_COMMAND } from '../../src/cli/commands/import-command.js';
import { MAIN_FLAGS, mainHelp } from '../../src/cli/commands/main-flags.js';
import { OPENAPI_COMMAND } from '../../src/cli/commands/openapi-command.js';
import { PROMPT_COMMAND } from '../../src/cli/commands/prompt-command.js';
import { READ_COMMAND } from '../../src/cli/commands/read-command.js';
import { SERVE_COMMAND } from '../../src/cli/commands/serve-command.js';
import { TOOLS_COMMAND } from '../../src/cli/commands/tools-command.js';
import {
  defineCommand,
  parseCommand,
  type CommandSpec,
  type FlagSpec,
  type FlagTable,
} from '../../src/cli/flags.js';
import { renderHelp } from '../../src/cli/render-help.js';

const COMMANDS: CommandSpec<FlagTable>[] = [
  APPROVALS_COMMAND,
  CONNECTIONS_COMMAND,
  CALL_COMMAND,
  CHECK_COMMAND,
  DEMO_COMMAND,
  DISCOVER_COMMAND,
  IMPORT_COMMAND,
  OPENAPI_COMMAND,
  PROMPT_COMMAND,
  READ_COMMAND,
  SERVE_COMMAND,
  TOOLS_COMMAND,
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const flagsOf = (c: CommandSpec<FlagTable>): [string, FlagSpec][] => Object.entries(c.flags);

describe('a command help rendered from its flag table', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s lists every flag it reads, with its value, default and help, and -h',
    (_name, command) => {
      const help = renderHelp(command);
      for (const [name, spec] of flagsOf(command)) {
        const label = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` ${spec.value}` : ''}`;
        expect(help).toMatch(new RegExp(`^  ${escapeRegExp(label)}( |$)`, 'm'));
        expect(help.replace(/\s+/g, ' ')).toContain(spec.help);
        if (spec.default !== undefined) expect(help).toContain(`(default ${spec.default})`);
        if (spec.type === 'string') expect(spec.value).toBeDefined();
      }
      expect(help).toMatch(/^ {2}-h, --help +Show this help$/m);
      expect(help).toMatch(new RegExp(`^Usage: mcp-beaver ${command.name}`));
    },
  );

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s wraps its options within 88 columns and ends with one newline',
    (_name, command) => {
      const help = renderHelp(command);
      const blocks = [...help.matchAll(/^Options[^\n]*:\n((?: {2}.*\n)+)/gm)].map((m) => m[1]!);
      expect(blocks.length).toBeGreaterThan(0);
      for (const line of blocks.join('').split('\n')) expect(line.length).toBeLessThanOrEqual(88);
      expect(help.endsWith('\n')).toBe(true);
      expect(help.endsWith('\n\n')).toBe(false);
    },
  );

  it('shows the flags marked inUsage in the usage line, and [options] for the others', () => {
    expect(renderHelp(CHECK_COMMAND)).toMatch(
      /^Usage: mcp-beaver check <spec\.mcp\.kdl \| folder>\.\.\. \[--quiet\] \[--env\] \[--live\] \[options\]\n/,
    );
    expect(renderHelp(IMPORT_COMMAND)).toMatch(
      /^Usage: mcp-beaver import openapi <file> \[-o FILE\] \[options\]\n/,
    );
    expect(renderHelp(TOOLS_COMMAND)).toMatch(
      /^Usage: mcp-beaver tools <spec\.mcp\.kdl> \[--json\] \[--toolset NAME\]\n {7}mcp-beaver tools <url> \[--json\] \[options\]\n/,
    );
    expect(renderHelp(DEMO_COMMAND)).toMatch(/^Usage: mcp-beaver demo \[options\]\n/);
  });

  it('lists flags under their own heading when they have one', () => {
    const help = renderHelp(TOOLS_COMMAND);
    const options = help.indexOf('\nOptions:\n');
    const forUrl = help.indexOf('\nOptions for a URL:\n');
    expect(options).toBeGreaterThan(0);
    expect(forUrl).toBeGreaterThan(options);
    expect(help.slice(options, forUrl)).toContain('--json');
    expect(help.slice(options, forUrl)).not.toContain('--header');
    expect(help.slice(forUrl)).toContain("--header 'Name: value'");
  });

  it('keeps the prose beside the table: what the command does, exit codes and examples', () => {
    const help = renderHelp(SERVE_COMMAND);
    expect(help).toContain('Serves every grant of the spec from one process:');
    expect(help).toContain(
      'Examples:\n  GITHUB_TOKEN=... mcp-beaver serve specs/github-issues.mcp.kdl --http :8080\n',
    );
    expect(help.indexOf('Options:')).toBeLessThan(help.indexOf('Credentials and keys come from'));
  });

  it('wraps a long text under its column, puts a wide label alone, and keeps "quoted examples" whole', () => {
    const command = defineCommand({
      name: 'x',
      usage: [''],
      about: 'About.',
      flags: {
        short: { type: 'boolean', help: 'A' },
        'a-very-long-flag-name': {
          type: 'string',
          value: 'VALUE',
          multiple: true,
          default: 'd',
          help: 'One line',
          note: `${'word '.repeat(20)}"GET /repos/*" end.`,
        },
      },
    });
    expect(renderHelp(command)).toBe(
      [
        'Usage: mcp-beaver x [options]',
        '',
        'About.',
        '',
        'Options:',
        '  --short     A',
        '  --a-very-long-flag-name VALUE',
        '              One line (repeatable) (default d). word word word word word word word word',
        '              word word word word word word word word word word word word "GET /repos/*"',
        '              end.',
        '  -h, --help  Show this help',
        '',
      ].join('\n'),
    );
  });

  it('renders the options of the main help from its own table', () => {
    const help = mainHelp();
    expect(help).toContain(
      '\nOptions:\n  -h, --help             Show help (also: mcp-beaver <command> --help)\n  -v, --version          Print the version\n',
    );
    expect(Object.keys(MAIN_FLAGS)).toEqual(['help', 'version']);
  });

  it("of the single executable offers neither demo nor either import, and names all three as the npm package's", () => {
    const help = mainHelp({ binary: true });
    expect(help).not.toMatch(/^ {2}(demo|import openapi|import mcp) /m);
    expect(help).not.toContain('mcp-beaver import');
    expect(help).toContain(
      '  (demo, import openapi and import mcp are in the npm package,\n   not in this single executable)\n',
    );
    // The npm package's help offers them.
    expect(mainHelp()).toMatch(/^ {2}import mcp <url> /m);
  });
});

describe('parseCommand', () => {
  it('fills in the declared defaults, and says apart what was given', () => {
    const parsed = parseCommand(SERVE_COMMAND, ['spec.kdl', '--grace', '3s']);
    expect(parsed).toEqual({
      values: {
        http: '127.0.0.1:8080',
        workers: '1',
        'max-in-flight': '1024',
        grace: '3s',
        'log-level': 'info',
      },
      given: { grace: '3s' },
      positionals: ['spec.kdl'],
    });
  });
});
