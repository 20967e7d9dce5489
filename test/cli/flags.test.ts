import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FlagError, flagNamed, readFlags } from '../../src/cli/flags.js';
import { CLI, runCli } from '../helpers/run-cli.js';

const FLAGS = {
  http: { type: 'string' },
  header: { type: 'string', multiple: true },
  quiet: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
} as const;

describe('readFlags (the one parser every command uses)', () => {
  it('reads string flags as "--name value" and "--name=value", booleans, and positionals in order', () => {
    expect(
      readFlags(FLAGS, ['a.kdl', '--http', ':8080', '--quiet', 'b.kdl', '--header=X: 1', '-']),
    ).toEqual({
      values: { http: ':8080', quiet: true, header: ['X: 1'] },
      positionals: ['a.kdl', 'b.kdl', '-'],
    });
  });

  it('collects a repeatable flag and keeps the last value of a single one', () => {
    expect(
      readFlags(FLAGS, ['--header', 'A: 1', '--header', 'B: 2', '--http', 'x', '--http=y']),
    ).toMatchObject({ values: { header: ['A: 1', 'B: 2'], http: 'y' } });
  });

  it('reads a one-letter alias where the table gives one, and only there', () => {
    expect(readFlags(FLAGS, ['-o', 'out.kdl', 'in.json'])).toEqual({
      values: { output: 'out.kdl' },
      positionals: ['in.json'],
    });
    expect(() => readFlags(FLAGS, ['-oout.kdl'])).toThrow(
      new FlagError('unknown option -oout.kdl'),
    );
  });

  it('takes everything after -- as positionals, dashes included', () => {
    expect(readFlags(FLAGS, ['--quiet', '--', '--http', '-x'])).toEqual({
      values: { quiet: true },
      positionals: ['--http', '-x'],
    });
  });

  it('leaves flags that were not given out of the values', () => {
    const parsed = readFlags(FLAGS, ['x']);
    expect(parsed).not.toBe('help');
    if (parsed !== 'help') expect('http' in parsed.values).toBe(false);
  });

  it.each([
    [['--bogus'], 'unknown option --bogus'],
    [['--bogus=1'], 'unknown option --bogus'],
    [['-x'], 'unknown option -x'],
    [['--toString'], 'unknown option --toString'],
    [['--http'], '--http needs a value'],
    [['--http', '--quiet'], '--http needs a value'],
    [['--quiet=yes'], '--quiet takes no value'],
    [['-q'], 'unknown option -q'],
    [['-o=out.kdl'], 'unknown option -o'],
  ])('refuses %j naming the flag: %s', (argv, message) => {
    expect(() => readFlags(FLAGS, argv)).toThrow(new FlagError(message));
  });

  it('finds a flag by its --name or its alias, never by an inherited name', () => {
    expect(flagNamed(FLAGS, '--output')).toBe('output');
    expect(flagNamed(FLAGS, '-o')).toBe('output');
    expect(flagNamed(FLAGS, '--o')).toBeUndefined();
    expect(flagNamed(FLAGS, '-output')).toBeUndefined();
    expect(flagNamed(FLAGS, '--constructor')).toBeUndefined();
    expect(flagNamed(FLAGS, 'output')).toBeUndefined();
  });

  it('answers help for -h or --help anywhere before --, even beside a wrong flag', () => {
    expect(readFlags(FLAGS, ['--bogus', '-h'])).toBe('help');
    expect(readFlags(FLAGS, ['x', '--help'])).toBe('help');
    expect(readFlags(FLAGS, ['--', '--help'])).toEqual({ values: {}, positionals: ['--help'] });
  });
});

/** Every command, with a flag it has that takes a value (check has none). */
const COMMANDS: [command: string[], valueFlag: string | undefined][] = [
  [['serve', 'specs/demo.mcp.kdl'], '--http'],
  [['check', 'specs/demo.mcp.kdl'], undefined],
  [['demo'], '--log-level'],
  [['tools', 'specs/demo.mcp.kdl'], '--era'],
  [['openapi', 'specs/demo.mcp.kdl'], '--server-url'],
  [['call', 'http://127.0.0.1:9/mcp', 'some_tool'], '--timeout'],
  [['discover', 'http://127.0.0.1:9/mcp'], '--header'],
  [['approvals', 'http://127.0.0.1:9'], '--bearer-env'],
  [['import', 'openapi', 'test/fixtures/openapi/shop/openapi.yaml'], '--tag'],
];

describe('every command line is checked by one parser', () => {
  it.each(COMMANDS)(
    '%j with an unknown flag exits 2 with one line naming it, and --help still teaches',
    async (command) => {
      const name = command[0]!;
      const r = await runCli([...command, '--bogus']);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `mcp-beaver ${name}: unknown option --bogus (see mcp-beaver ${name} --help)\n`,
      });
      const help = await runCli([name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`mcp-beaver ${name}`);
      expect(help.stderr).toBe('');
    },
  );

  it.each(COMMANDS.filter((c): c is [string[], string] => c[1] !== undefined))(
    '%j with %s and no value exits 2 with one line naming it',
    async (command, flag) => {
      const name = command[0]!;
      const r = await runCli([...command, flag]);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `mcp-beaver ${name}: ${flag} needs a value (see mcp-beaver ${name} --help)\n`,
      });
    },
  );
});

describe('a closed stdout', () => {
  /** Runs the CLI with its stdout pipe closed by the reader before anything is written. */
  function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it.each([
    [['tools', 'specs/payments-form.mcp.kdl']],
    [['tools', 'specs/payments-form.mcp.kdl', '--json']],
    [['openapi', 'specs/github-issues.mcp.kdl']],
    [['--help']],
  ])('ends %j quietly with 0 (mcp-beaver … | head)', async (args) => {
    expect(await runWithClosedStdout(args)).toEqual({ code: 0, stderr: '' });
  });
});
