/**
 * Shared by the upstream MCP tests: opening an upstream with a log the test can read,
 * the real servers' entry points, and waiting for a condition.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  openMcpUpstream,
  type McpUpstream,
  type UpstreamOptions,
} from '../../src/mcp-upstream/mcp-upstream.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MODULES = join(ROOT, 'node_modules', '@modelcontextprotocol');
export const EVERYTHING = join(MODULES, 'server-everything', 'dist', 'index.js');
export const FILESYSTEM = join(MODULES, 'server-filesystem', 'dist', 'index.js');
export const MEMORY = join(MODULES, 'server-memory', 'dist', 'index.js');
export const HOSTILE = join(ROOT, 'test', 'fixtures', 'mcp-upstream', 'hostile-server.mjs');
export const MODERN_STDIO = join(
  ROOT,
  'test',
  'fixtures',
  'mcp-upstream',
  'modern-stdio-server.mjs',
);
export const NODE = process.execPath;

export interface Opened {
  readonly upstream: McpUpstream;
  readonly logs: string[];
}

/** Opens an upstream whose log lines land in `logs`; fails the test if it cannot open. */
export function open(
  o: Omit<UpstreamOptions, 'log' | 'redact' | 'maxMessageBytes'> & Partial<UpstreamOptions>,
): Opened {
  const logs: string[] = [];
  const opened = openMcpUpstream({
    maxMessageBytes: 1 << 20,
    redact: (t) => t,
    log: (level, message) => logs.push(`${level}: ${message}`),
    ...o,
  });
  if (!opened.ok) throw new Error(opened.message);
  return { upstream: opened.upstream, logs };
}

export async function until<T>(probe: () => T | undefined | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** server-everything in Streamable HTTP mode on `port`, resolved once it listens. */
export async function startEverythingHttp(port: number): Promise<ChildProcess> {
  const child = spawn(NODE, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  child.stdout?.on('data', (c: Buffer) => (said += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (said += c.toString()));
  await until(() => said.includes('listening on port') || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`server-everything did not start: ${said}`);
  return child;
}

export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await gone;
  clearTimeout(t);
}
