import { spawn, type ChildProcess } from 'node:child_process';
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

/** The runCli children that have not exited yet. */
const running = new Set<ChildProcess>();

/**
 * Kills the runCli children still running: test/setup-env.ts calls it after each test.
 * A test that timed out leaves its child running, and on a busy machine that child would
 * go on to call the file's shared upstream or gateway during the next test, which then
 * counts a request it never made (issue 39).
 */
export function killLeftoverCliRuns(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

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
    running.add(child);
    child.once('exit', () => running.delete(child));
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
