/**
 * A private redis-server for the tests: the machine's binary on a free port of
 * 127.0.0.1, in a temporary directory, persisting nothing. Only servers made here
 * are ever stopped by the suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../../bench/lib/free-port.mjs';
import { sleep } from '../../bench/lib/sleep.mjs';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Stops it and removes its directory; waits for the process to exit. */
  stop(): Promise<void>;
}

/** The redis-server on PATH, or undefined. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, 'redis-server'))
    .find((f) => existsSync(f));
}

export const NO_REDIS_SERVER =
  'no redis-server on PATH: install it (Debian/Ubuntu: apt-get install redis-server; ' +
  'macOS: brew install redis), or name a server with REDIS_URL';

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts a redis-server on `port` (default: a free one) and waits until it accepts commands. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const bin = findRedisServer();
  if (!bin) throw new Error(NO_REDIS_SERVER);
  const p = port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'mcpb-redis-'));
  const child = spawn(
    bin,
    ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  child.on('error', (err) => (out += `\n${err.message}`));
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (!out.includes('Ready to accept connections')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on port ${p} did not start:\n${out}`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${p}`, port: p, child, stop };
}
