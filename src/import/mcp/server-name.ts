/**
 * The `mcp-server` name of a draft, from what the command line gave: the URL's host
 * (`https://mcp.linear.app/mcp` → `linear`) or the command's package or program
 * (`npx -y @modelcontextprotocol/server-filesystem /srv` → `filesystem`), made a name
 * the language takes (`^[a-z][a-z0-9-]{0,31}$`).
 */
import { basename } from 'node:path';

export const SERVER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** Labels a host often starts with that name the service's front door, not the service. */
const FRONT_DOORS = new Set(['www', 'api', 'mcp', 'app']);

/** Programs that run another program: the name is that one's. */
const LAUNCHERS = new Set([
  'npx',
  'pnpx',
  'bunx',
  'uvx',
  'pipx',
  'node',
  'deno',
  'bun',
  'python',
  'python3',
  'uv',
  'npm',
  'pnpm',
  'yarn',
  'docker',
  'podman',
]);

/** A launcher's sub-commands (`uv run`, `docker run`, `pnpm dlx`), never the server. */
const SUBCOMMANDS = new Set(['run', 'exec', 'x', 'dlx', 'tool', 'start']);

/** Folders a package's entry point sits in: the package is the folder above them. */
const BUILD_DIRS = new Set(['dist', 'build', 'lib', 'src', 'bin', 'out']);

export function sanitiseServerName(text: string): string {
  let name = text
    .toLowerCase()
    .replace(/^(mcp[-_]server[-_]|server[-_]|mcp[-_])/, '')
    .replace(/([-_]mcp[-_]server|[-_]mcp|[-_]server)$/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (name === '') name = 'upstream';
  if (!/^[a-z]/.test(name)) name = `mcp-${name}`;
  return name.slice(0, 32).replace(/-+$/, '');
}

export function serverNameFromUrl(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || /^127\./.test(host) || host === '::1') return 'local';
  if (/^[0-9.]+$/.test(host) || host.includes(':')) return 'upstream';
  const labels = host.split('.').filter(Boolean);
  const named = labels.length > 1 ? labels.slice(0, -1) : labels;
  const first = named.find((l) => !FRONT_DOORS.has(l)) ?? named[0] ?? 'upstream';
  return sanitiseServerName(first);
}

export function serverNameFromCommand(program: string, args: readonly string[]): string {
  const own = basename(program).replace(/\.(exe|cmd|bat)$/i, '');
  if (!LAUNCHERS.has(own)) return sanitiseServerName(own.replace(/\.[a-z]+$/i, ''));
  const target = args.find((a) => !a.startsWith('-') && !SUBCOMMANDS.has(a));
  return target === undefined ? sanitiseServerName(own) : sanitiseServerName(packageOf(target));
}

/**
 * The package a launcher's word names: `@scope/name@1.2.3` → `name`, an image
 * `mcp/github:latest` → `github`, an entry point `…/node_modules/@scope/name/dist/index.js`
 * or `…/server-x/build/main.py` → the package's folder, `mcp_server_time` → itself.
 */
function packageOf(word: string): string {
  const parts = word.split(/[\\/]/).filter(Boolean);
  const modules = parts.lastIndexOf('node_modules');
  if (modules >= 0 && parts[modules + 1] !== undefined) {
    const scoped = parts[modules + 1]!.startsWith('@');
    return parts[modules + (scoped ? 2 : 1)] ?? parts[modules + 1]!;
  }
  if (/\.(m?js|cjs|ts|py)$/i.test(word)) {
    const dirs = parts.slice(0, -1);
    while (dirs.length > 0 && BUILD_DIRS.has(dirs[dirs.length - 1]!)) dirs.pop();
    const entry = parts[parts.length - 1]!.replace(/\.[a-z]+$/i, '');
    return dirs.length > 0 && /^(index|main|server|cli)$/.test(entry) ? dirs.pop()! : entry;
  }
  const last = parts[parts.length - 1] ?? word;
  // A version after the name (`name@1.2.3`, `image:tag`); a scope's own `@` starts it.
  return last.replace(/(?<=.)[@:].*$/, '');
}
