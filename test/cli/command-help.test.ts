import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

// Every command the main help lists. main.ts answers --help and a refused flag from the
// command's flag table before loading the command: each must still get its own table.
const COMMANDS = [
  'serve',
  'demo',
  'check',
  'tools',
  'openapi',
  'import',
  'call',
  'read',
  'prompt',
  'discover',
  'approvals',
  'connections',
];

describe('mcp-beaver <command> --help and a flag the command does not take', () => {
  it.each(COMMANDS)('%s --help prints its own usage on stdout and exits 0', async (name) => {
    const r = await runCli([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: mcp-beaver ${name}\\b`));
    expect(r.stderr).toBe('');
  });

  it.each(COMMANDS)(
    '%s with an unknown flag names it and the help in one line and exits 2',
    async (name) => {
      const r = await runCli([name, '--no-such-flag']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `mcp-beaver ${name}: unknown option --no-such-flag (see mcp-beaver ${name} --help)\n`,
      );
    },
  );

  it('refuses the flag before it reads the operands, so a missing spec file is not what it says', async () => {
    const r = await runCli(['serve', 'no-such-file.mcp.kdl', '--workres', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'mcp-beaver serve: unknown option --workres (see mcp-beaver serve --help)\n',
    );
  });
});
