/**
 * `database embedded` runs a real Postgres as a child process (embedded-server.ts): it
 * listens on 127.0.0.1 only, with no Unix socket, never as root, and it stops with the
 * gateway however the gateway ends — SIGTERM, SIGINT or SIGKILL (nothing of the
 * gateway runs then: a crash is no worse) — leaving no postgres process and no data
 * directory behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/gateway.js';
import { serveProcess, type ServeProcess } from '../reliability/serve-process.js';

const SPEC = `
wrap "embedded-lifecycle" version="1.0.0"
database embedded

can list where {
    describe "Where the server listens."
    sql "SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets, inet_server_addr()::text AS addr"
}
`;

/** Every process below `pid`, from /proc's parent links (the gateway's own children first). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parent) if (pp === out[i]) out.push(p);
  return out.slice(1);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const cmdline = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** The postmaster (its command line has -D) and its data directory. */
function postmaster(gatewayPid: number): { pid: number; dataDir: string; all: number[] } {
  const all = descendants(gatewayPid);
  for (const pid of all) {
    const argv = cmdline(pid);
    const d = argv.indexOf('-D');
    if (d >= 0 && argv[0]!.endsWith('postgres')) return { pid, dataDir: argv[d + 1]!, all };
  }
  throw new Error(`no postgres below the gateway (processes: ${all.join(', ') || 'none'})`);
}

async function until(what: string, done: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > end) throw new Error(`still not true after 20 s: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let gw: ServeProcess | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe('the embedded Postgres process', { timeout: 90_000 }, () => {
  it('listens on 127.0.0.1 only, with no Unix socket, and not as root', async () => {
    gw = await serveProcess(SPEC);
    const res = await postJson(`${gw.url}/api/list_where`, {});
    expect(res.status).toBe(200);
    expect((res.json as { result: unknown }).result).toEqual([
      { listen: '127.0.0.1', sockets: '', addr: '127.0.0.1/32' },
    ]);
    const { pid } = postmaster(gw.pid);
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    if (process.getuid!() === 0) expect(uid).not.toBe(0);
    else expect(uid).toBe(process.getuid!());
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    it(`stops, and its data directory is removed, when the gateway gets ${signal}`, async () => {
      gw = await serveProcess(SPEC);
      expect((await postJson(`${gw.url}/api/list_where`, {})).status).toBe(200);
      const pg = postmaster(gw.pid);
      expect(existsSync(pg.dataDir)).toBe(true);
      process.kill(gw.pid, signal);
      await gw.exited;
      await until('every process the gateway started has exited', () => !pg.all.some(alive));
      await until(`${pg.dataDir} is removed`, () => !existsSync(pg.dataDir));
    });
  }
});
