/**
 * A throwaway PostgreSQL cluster for the tests, made from the machine's own server
 * binaries (initdb, pg_ctl): a temporary directory, a free port on 127.0.0.1, a
 * database, and nothing else. The suite restarts and stops only clusters made here.
 *
 * initdb and postgres refuse to run as root, so under root (CI, containers) the
 * cluster belongs to the `postgres` system user, or `nobody` where there is none.
 * Each cluster's directory names the pid of the process that made it: a run killed
 * before its teardown leaves a cluster whose owner is gone, and the next one stops it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFile,
  chmod,
  chown,
  mkdir,
  mkdtemp,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../bench/lib/free-port.mjs';

const PREFIX = 'mcpb-pg-';
const TEMPLATE_PREFIX = 'mcpb-pgtemplate-';

export interface PgCluster {
  /** postgres://user[:password]@127.0.0.1:port/database */
  readonly url: string;
  readonly port: number;
  /** The cluster's directory: `data/`, its socket and `postgres.log`. */
  readonly dir: string;
  readonly binDir: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface PgClusterOptions {
  /** The superuser (default `postgres`). */
  user?: string;
  /** When set, TCP logins need it (scram-sha-256); otherwise trust. */
  password?: string;
  /** Created after start (default `test`). */
  database?: string;
}

/** The binaries' directory, or undefined: MCP_BEAVER_PG_BINDIR, pg_config, Debian's layout, PATH. */
export function findPgBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  const candidates: string[] = [];
  if (env.MCP_BEAVER_PG_BINDIR) candidates.push(env.MCP_BEAVER_PG_BINDIR);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // no pg_config: look further
  }
  for (const root of ['/usr/lib/postgresql', '/opt/homebrew/opt', '/usr/local/opt']) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((d) => /^(postgresql@?)?\d+$/.test(d) || d === 'postgresql')
      .sort((a, b) => Number(b.replace(/\D/g, '')) - Number(a.replace(/\D/g, '')));
    candidates.push(...versions.map((v) => join(root, v, 'bin')));
  }
  candidates.push(...(env.PATH ?? '').split(delimiter).filter(Boolean));
  return candidates.find(has);
}

/** How to get the binaries, for the message of a run that has none. */
export const NO_PG_BINARIES =
  'no PostgreSQL server binaries (initdb, pg_ctl) were found: install them ' +
  '(Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql), point ' +
  'MCP_BEAVER_PG_BINDIR at their directory, or name a server with DATABASE_URL or PG*';

/** The uid/gid the cluster runs as: ours, or under root an unprivileged user. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` user exists');
}

function runAs(
  file: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
  cwd: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd, ...(owner && { uid: owner.uid, gid: owner.gid }), timeout: 120_000 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${stderr}`))
          : resolve(stdout),
    );
  });
}

/** pg_ctl on the cluster in `dir`, as the user that owns it (the log always goes to a file). */
async function pgCtl(binDir: string, dir: string, args: string[]): Promise<void> {
  const { uid, gid } = await stat(join(dir, 'data'));
  const owner = process.getuid?.() === 0 ? { uid, gid } : undefined;
  // Without -l the postmaster would inherit our stdout and pg_ctl's pipe would never close.
  const log = ['-l', join(dir, 'postgres.log')];
  await runAs(
    join(binDir, 'pg_ctl'),
    ['-D', join(dir, 'data'), '-w', '-t', '60', ...log, ...args],
    owner,
    dir,
  );
}

/** Restarts the cluster in `dir` (made by startPgCluster, in this process or another). */
export function restartPgCluster(binDir: string, dir: string): Promise<void> {
  return pgCtl(binDir, dir, ['restart', '-m', 'fast']);
}

/**
 * initdb into `dir`/data. A trust cluster is copied from a pristine one kept in the
 * temporary directory after the first initdb (a copy takes a fraction of its time).
 */
async function initCluster(
  binDir: string,
  dir: string,
  user: string,
  password: string | undefined,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  const data = join(dir, 'data');
  // The server's version in the key: a template from another major would not start.
  const version = execFileSync(join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' });
  const key = createHash('sha256')
    .update(`${binDir}\0${version}\0${user}\0${owner?.uid}`)
    .digest('hex');
  const template = join(tmpdir(), `${TEMPLATE_PREFIX}${key.slice(0, 12)}`);
  if (!password && existsSync(join(template, 'ready'))) {
    await runAs('cp', ['-a', join(template, 'data'), data], undefined, dir);
    return;
  }
  const auth = password
    ? ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${join(dir, 'pw')}`]
    : ['--auth=trust'];
  if (password) {
    await writeFile(join(dir, 'pw'), `${password}\n`, { mode: 0o600 });
    if (owner) await chown(join(dir, 'pw'), owner.uid, owner.gid);
  }
  const initdb = (locale: string) =>
    runAs(
      join(binDir, 'initdb'),
      ['-D', data, '-U', user, '-E', 'UTF8', `--locale=${locale}`, '--no-sync', ...auth],
      owner,
      dir,
    );
  try {
    // C.UTF-8 as on the machine's own cluster; plain C where the system has no such locale.
    await initdb('C.UTF-8').catch(async () => {
      await rm(data, { recursive: true, force: true });
      await initdb('C');
    });
  } finally {
    await rm(join(dir, 'pw'), { force: true });
  }
  if (password) return;
  // Kept for the next run: staged, then renamed into place in one step.
  const staged = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(staged);
    await runAs('cp', ['-a', data, join(staged, 'data')], undefined, dir);
    await writeFile(join(staged, 'ready'), '');
    await rename(staged, template);
  } catch {
    // another run kept one first
  } finally {
    await rm(staged, { recursive: true, force: true });
  }
}

export async function startPgCluster(opts: PgClusterOptions = {}): Promise<PgCluster> {
  const binDir = findPgBinDir();
  if (!binDir) throw new Error(NO_PG_BINARIES);
  await stopOrphans(binDir);
  const user = opts.user ?? 'postgres';
  const database = opts.database ?? 'test';
  const owner = clusterOwner();
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  await writeFile(join(dir, 'owner.pid'), String(process.pid));
  if (owner) await chown(dir, owner.uid, owner.gid);
  await chmod(dir, 0o700);
  try {
    await initCluster(binDir, dir, user, opts.password, owner);
    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      // A throwaway cluster: durability is not wanted, speed is.
      await appendFile(
        join(dir, 'data', 'postgresql.conf'),
        `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\n` +
          `fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n`,
      );
      try {
        await pgCtl(binDir, dir, ['start']);
        break;
      } catch (err) {
        // Someone took the port between our probe and the server's bind: another one.
        if (attempt >= 2) {
          const log = readFileSync(join(dir, 'postgres.log'), 'utf8').slice(-2_000);
          throw new Error(`${(err as Error).message}\npostgres.log:\n${log}`, { cause: err });
        }
      }
    }
    const auth_ = opts.password
      ? `${encodeURIComponent(user)}:${encodeURIComponent(opts.password)}`
      : encodeURIComponent(user);
    const admin = new pg.Client({
      connectionString: `postgres://${auth_}@127.0.0.1:${port}/postgres`,
    });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }
    return {
      url: `postgres://${auth_}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
      port,
      dir,
      binDir,
      restart: () => restartPgCluster(binDir, dir),
      stop: () => removeCluster(binDir, dir),
    };
  } catch (err) {
    await removeCluster(binDir, dir);
    throw err;
  }
}

async function removeCluster(binDir: string, dir: string): Promise<void> {
  if (existsSync(join(dir, 'data', 'postmaster.pid')))
    await pgCtl(binDir, dir, ['stop', '-m', 'immediate']).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops and removes clusters made here by a process that is gone (a killed run). */
async function stopOrphans(binDir: string): Promise<void> {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(tmpdir(), name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // not one of ours, or being made right now
    }
    if (pid > 0 && !alive(pid)) await removeCluster(binDir, dir);
  }
}
