import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The installed command's entry point. In a checkout it runs the sources through tsx,
 * seconds of CPU per start on a busy machine: only the tests about the entry point itself
 * (the demo's `npm start`, the package tests) spawn it. The others spawn CLI.
 */
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mcp-beaver.js');

/**
 * The CLI the tests spawn (`node CLI ...`): the bundle `npm run build` ships, built fresh
 * for this run by test/global-setup.ts (helpers/cli-build.ts). Outside vitest (the soak's
 * overload run imports reliability/serve-process.ts) there is no such build: BIN.
 */
export const CLI = process.env.MCP_BEAVER_TEST_CLI ?? BIN;

/** Runs the real `mcp-beaver` CLI as a child process, as a user would. */
export function runCli(
  args: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Written to the child's stdin, which is then closed (empty by default). */
    input?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
