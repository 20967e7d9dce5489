/**
 * The suite spawns the CLI that test/global-setup.ts bundles for the run (issue 39), not
 * bin/mcp-beaver.js, which compiles the sources through tsx on every start; and a run a
 * timed-out test leaves behind is ended before the next test (test/setup-env.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, CLI, killLeftoverCliRuns, runCli } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');

describe('the CLI the tests spawn', () => {
  it('is the bundle built for this run, two levels below the repository root', () => {
    expect(CLI).not.toBe(BIN);
    expect(relative(root, CLI).split(sep)).toEqual([
      '.test-build',
      expect.stringMatching(/^\d+-\d+$/),
      'main.js',
    ]);
    expect(existsSync(CLI)).toBe(true);
  });

  it('reads the package beside the sources: --version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = await runCli(['--version']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });
});

describe('a CLI run still going when its test ends', () => {
  it('is killed by killLeftoverCliRuns, so it cannot call the next test’s upstream', async () => {
    // An MCP server that accepts the connection and never answers: the call waits.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const run = runCli(['call', `http://127.0.0.1:${port}/mcp`, 'some_tool']);
      while (sockets.length === 0) await new Promise((r) => setTimeout(r, 20));
      killLeftoverCliRuns();
      const r = await run;
      expect(r.code).toBeNull();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
