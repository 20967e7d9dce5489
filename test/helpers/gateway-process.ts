/**
 * The gateway as a separate process (`mcp-beaver serve <file> --http 127.0.0.1:0`), for
 * the tests where being one process would hide a difference: module-level state such as
 * a per-process key is not shared with the test's in-process gateways.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './run-cli.js';

export interface GatewayProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Its stdout and stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess, timeoutMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Serves `specFile` with `env` added to this process's, once its listening line is out. */
export async function serveProcess(
  specFile: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<GatewayProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', specFile, '--http', '127.0.0.1:0', '--no-watch', '--log-level', 'debug'],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`mcp-beaver serve did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const look = (): void => {
      for (const line of out.split('\n')) {
        if (!line.includes('"mcp-beaver listening"')) continue;
        cleanup();
        resolve((JSON.parse(line) as { url: string }).url);
        return;
      }
    };
    const exited = (): void => {
      cleanup();
      reject(new Error(`mcp-beaver serve exited early:\n${out}`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout!.off('data', look);
      child.stderr!.off('data', look);
      child.off('exit', exited);
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', exited);
  }).catch(async (err: unknown) => {
    await stopProcess(child);
    throw err;
  });
  return { url, child, log: () => out, stop: () => stopProcess(child) };
}
