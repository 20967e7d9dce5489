/**
 * The MCP Inspector CLI as a real client for the tests: the copy `npm run check:inspector`
 * (scripts/inspector-strict.sh) installs with its own Node 24 into INSPECTOR_DIR, outside
 * the repository. Where it is not installed yet the tests that use it say so and skip; CI
 * installs it before its Node 24 run of test/e2e.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const DIR =
  process.env.INSPECTOR_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'mcp-beaver-inspector');
const NODE = join(DIR, 'node_modules', 'node', 'bin', 'node');
const CLI = join(
  DIR,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);

export const hasInspector = existsSync(NODE) && existsSync(CLI);

export interface InspectorRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `inspector --cli <mcpUrl> <args...>`, its exit code and output. */
export function runInspector(mcpUrl: string, args: readonly string[]): Promise<InspectorRun> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [CLI, '--cli', mcpUrl, ...args],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
