/**
 * `database embedded` runs a real Postgres as a child process (embedded-server.ts): it
 * listens on 127.0.0.1 only, with no Unix socket, never as root, and it stops with the
 * gateway however the gateway ends — SIGTERM, SIGINT or SIGKILL (nothing of the
 * gateway runs then: a crash is no worse) — leaving no postgres process and no data
 * directory behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, processTree } from '../../bench/lib/proc.mjs';
import { sleep } from '../../bench/lib/sleep.mjs';
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

const cmdline = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** The postmaster (its command line has -D) and its data directory. */
function postmaster(gatewayPid: number): { pid: number; dataDir: string; all: number[] } {
  // Every process below the gateway, its own children first.
  const all = processTree(gatewayPid).slice(1);
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
    await sleep(50);
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
      await until('every process the gateway started has exited', () => !pg.all.some(isAlive));
      await until(`${pg.dataDir} is removed`, () => !existsSync(pg.dataDir));
    });
  }
});
