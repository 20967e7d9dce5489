/**
 * The real `mcp-beaver serve` as its own process, for the reliability tests: the spec
 * is written to a temp file, the CLI listens on 127.0.0.1:0, and the URL is read
 * from its "listening" log line; bench/lib/proc.mjs reads its memory, descriptors and
 * CPU time from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningUrl } from '../../bench/lib/listening.mjs';
import { sleep } from '../../bench/lib/sleep.mjs';
import { CLI } from '../helpers/run-cli.js';

export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code and when it happened (Date.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** SIGTERM (unless it already exited) and wait for the exit. */
  stop(): Promise<void>;
}

export async function serveProcess(
  specText: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-rel-'));
  const file = join(dir, 'spec.mcp.kdl');
  writeFileSync(file, specText);
  // Logs go to a file, not a pipe: stdout to a pipe is synchronous on Linux, so a test
  // process busy generating load would otherwise stall the gateway on every log line.
  const logFile = join(dir, 'out.log');
  const log = openSync(logFile, 'w');
  const child = spawn(
    process.execPath,
    [CLI, 'serve', file, '--http', '127.0.0.1:0', '--no-watch', ...args],
    { env: { ...process.env, ...env }, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  let last = '';
  const out = (): string => {
    try {
      last = readFileSync(logFile, 'utf8');
    } catch {
      // removed after the exit: keep the last text read
    }
    return last;
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) =>
      child.once('exit', (code, signal) => {
        out();
        rmSync(dir, { recursive: true, force: true });
        resolve({ code, signal, at: Date.now() });
      }),
  );
  const until = Date.now() + 90_000;
  let url: string | undefined;
  while (url === undefined) {
    url = listeningUrl(out());
    if (url) break;
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`the gateway did not start:\n${out()}`);
    }
    await sleep(50);
  }
  return {
    url,
    pid: child.pid!,
    child,
    output: out,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
