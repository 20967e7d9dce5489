import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mcp-beaver.js');

/** Runs the real `mcp-beaver` entry point as a child process, as a user would. */
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
    const child = spawn(process.execPath, [BIN, ...args], {
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
