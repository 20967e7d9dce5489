/**
 * `serve --workers N` (issue 40), the real CLI as a process: a primary and its workers on
 * one port. Which process answered is read from the audit line of each call, which names
 * its worker and pid; calls go on connections of their own, since the primary hands out
 * connections, not requests, in turn.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, fetch as undiciFetch, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';
import { skipBecause } from '../helpers/skip-reason.js';
import {
  findRedisServer,
  NO_REDIS_SERVER,
  startRedisServer,
  type RedisServer,
} from '../helpers/redis-server.js';
import { MODERN } from '../helpers/mcp-wire.js';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { sleep } from '../../bench/lib/sleep.mjs';

const NO_REDIS_BINARY = skipBecause(findRedisServer() === undefined, NO_REDIS_SERVER);
/** Starting a primary and two workers on a busy 2-core machine: bounds, not measurements. */
const SLOW = 120_000;

let upstream: Upstream;
let gate: { open: () => void; held: Promise<void> } | undefined;

beforeAll(async () => {
  upstream = await startUpstream(async (req, res) => {
    await gate?.held;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.path }));
  });
});

afterAll(async () => {
  gate?.open();
  await upstream?.close();
});

function spec(extra = '', grantExtra = ''): string {
  return `
wrap "workers" version="1.0.0"
base-url "${upstream.url}"
timeout "5m"
${extra}
can get thing {
    describe "A thing."
    path "/thing/{n}"
    ${grantExtra}
}
`;
}

interface AuditLine {
  msg: string;
  worker?: number;
  pid: number;
  tool?: string;
  outcome?: string;
}

function lines(gw: ServeProcess): AuditLine[] {
  return gw
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as AuditLine];
      } catch {
        return [];
      }
    });
}

/** The pids that wrote an audit line for a call of `get_thing`. */
function callPids(gw: ServeProcess): Set<number> {
  return new Set(
    lines(gw)
      .filter((l) => l.msg === 'tool call')
      .map((l) => l.pid),
  );
}

/** POST /api/get_thing on a connection of its own: status and body. */
async function restCall(url: string, n: number): Promise<{ status: number; body: string }> {
  const agent = new Agent({ connections: 1 });
  try {
    const res = await request(`${url}/api/get_thing`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: String(n) }),
    });
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    await agent.destroy();
  }
}

/** tools/call through the SDK client, on a connection of its own. */
async function mcpCall(url: string, n: number): Promise<{ isError?: boolean; text: string }> {
  const agent = new Agent({ connections: 1 });
  const client = new Client(
    { name: 'workers-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        fetch: (input, init) =>
          undiciFetch(input as string, { ...(init as object), dispatcher: agent }) as never,
      }),
    );
    const result = (await client.callTool({ name: 'get_thing', arguments: { n: String(n) } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return { isError: result.isError, text: result.content[0]?.text ?? '' };
  } finally {
    await client.close();
    await agent.destroy();
  }
}

async function until(what: string, check: () => boolean, gw: ServeProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${gw.output()}`);
    await sleep(50);
  }
}

function workerPids(gw: ServeProcess): number[] {
  const listening = lines(gw).find((l) => l.msg === 'mcp-beaver listening') as
    (AuditLine & { workerPids: number[] }) | undefined;
  return listening?.workerPids ?? [];
}

describe('two workers of one spec', () => {
  let gw: ServeProcess;
  beforeAll(async () => {
    gw = await serveProcess(spec(), ['--workers', '2']);
  }, SLOW);
  afterAll(async () => {
    gate?.open();
    await gw?.stop();
  });

  it(
    'answer REST and MCP calls on one port from two processes, and /metrics counts the calls of both',
    async () => {
      const rest = [];
      const mcp = [];
      for (let n = 1; n <= 4; n++) {
        rest.push(await restCall(gw.url, n));
        mcp.push(await mcpCall(gw.url, n));
      }
      expect(rest.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(mcp.every((r) => r.isError !== true && r.text.includes('/thing/'))).toBe(true);
      const pids = workerPids(gw);
      expect(pids).toHaveLength(2);
      expect(pids).not.toContain(gw.pid);
      expect(callPids(gw)).toEqual(new Set(pids));
      // Whichever worker answers the scrape, it reports the sum over both.
      const metrics = await (await undiciFetch(`${gw.url}/metrics`)).text();
      const count = (surface: string): number =>
        Number(
          new RegExp(
            `mcp_beaver_tool_calls_total\\{tool="get_thing",surface="${surface}",outcome="ok"\\} (\\d+)`,
          ).exec(metrics)?.[1],
        );
      expect(count('rest')).toBe(4);
      expect(count('mcp')).toBe(4);
      expect(metrics).toMatch(/^mcp_beaver_spec_generation 1$/m);
    },
    SLOW,
  );

  it(
    'replace a worker that is killed, and the port keeps answering from the new one',
    async () => {
      const [victim, survivor] = workerPids(gw);
      process.kill(victim!, 'SIGKILL');
      await until(
        'a replacement worker listening',
        () =>
          lines(gw).some(
            (l) => l.msg === 'worker listening' && ![victim, survivor].includes(l.pid),
          ),
        gw,
      );
      const replacement = lines(gw).find(
        (l) => l.msg === 'worker listening' && ![victim, survivor].includes(l.pid),
      )!;
      expect(lines(gw).some((l) => l.msg === 'a worker died: replacing it')).toBe(true);
      const before = lines(gw).length;
      for (let n = 1; n <= 4; n++) expect((await restCall(gw.url, n)).status).toBe(200);
      const answered = new Set(
        lines(gw)
          .slice(before)
          .filter((l) => l.msg === 'tool call')
          .map((l) => l.pid),
      );
      expect(answered).toEqual(new Set([survivor, replacement.pid]));
    },
    SLOW,
  );

  it(
    'reload in every worker when the primary gets SIGHUP, and refuse a reload that adds a rate limit without Redis',
    async () => {
      const listening = lines(gw).find((l) => l.msg === 'mcp-beaver listening') as unknown as {
        spec: string;
      };
      const reloads = (msg: string): AuditLine[] => lines(gw).filter((l) => l.msg === msg);
      writeFileSync(listening.spec, spec('', 'rate-limit "3/m"'));
      gw.child.kill('SIGHUP');
      await until(
        'two rejected reloads',
        () => reloads('spec reload rejected; the previous spec keeps serving').length === 2,
        gw,
      );
      const rejected = reloads(
        'spec reload rejected; the previous spec keeps serving',
      ) as unknown as {
        pid: number;
        reason: string;
      }[];
      expect(rejected.every((l) => l.reason.startsWith('WORKERS_NEED_REDIS'))).toBe(true);
      writeFileSync(
        listening.spec,
        spec().replace('describe "A thing."', 'describe "A thing, again."'),
      );
      gw.child.kill('SIGHUP');
      await until('two applied reloads', () => reloads('spec reloaded').length === 2, gw);
      expect(new Set(reloads('spec reloaded').map((l) => l.pid)).size).toBe(2);
      const metrics = await (await undiciFetch(`${gw.url}/metrics`)).text();
      expect(metrics).toMatch(/^mcp_beaver_spec_generation 2$/m);
      // One failed reload in each worker, then one that succeeded.
      expect(metrics).toMatch(/^mcp_beaver_spec_last_reload_success 1$/m);
    },
    SLOW,
  );

  it(
    'drain every worker on SIGTERM: a call in flight finishes, and the primary exits 0',
    async () => {
      let open!: () => void;
      gate = { open: () => open(), held: new Promise<void>((r) => (open = r)) };
      const seen = upstream.requests.length;
      const inFlight = [restCall(gw.url, 7), mcpCall(gw.url, 8)];
      await until('both calls at the upstream', () => upstream.requests.length >= seen + 2, gw);
      gw.child.kill('SIGTERM');
      await until(
        'every worker draining',
        () => lines(gw).filter((l) => l.msg.startsWith('draining:')).length === 2,
        gw,
      );
      gate.open();
      const [rest, mcp] = await Promise.all(inFlight);
      expect(rest).toMatchObject({ status: 200 });
      expect(mcp).toMatchObject({ text: expect.stringContaining('/thing/8') as unknown });
      const exit = await gw.exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(lines(gw).filter((l) => l.msg === 'stopped')).toHaveLength(3);
    },
    SLOW,
  );
});

describe('state the workers must share', () => {
  it(
    'is refused without Redis: --workers 2 and a rate-limited grant name WORKERS_NEED_REDIS and what to add',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcpb-workers-'));
      try {
        const file = join(dir, 'spec.mcp.kdl');
        writeFileSync(file, spec('', 'rate-limit "3/m"'));
        const r = await runCli(['serve', file, '--workers', '2', '--http', '127.0.0.1:0']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('WORKERS_NEED_REDIS');
        expect(r.stderr).toContain('rate-limit counts (grant "get_thing" at line');
        expect(r.stderr).toContain('limits redis-env=');
        // A count that is not a number is refused before the spec is even read.
        const one = await runCli(['serve', file, '--workers', 'x']);
        expect(one.stderr).toContain('--workers takes a whole number');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it.skipIf(NO_REDIS_BINARY)(
    'is counted once in Redis: 3 calls a minute over two workers allow 3 calls in all',
    async () => {
      const redis: RedisServer = await startRedisServer();
      const gw = await serveProcess(
        spec('limits redis-env="WORKERS_REDIS_URL"', 'rate-limit "3/m"'),
        ['--workers', '2'],
        { WORKERS_REDIS_URL: redis.url },
      );
      try {
        const statuses = [];
        for (let n = 1; n <= 6; n++) statuses.push((await restCall(gw.url, n)).status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(3);
        expect(statuses.filter((s) => s === 429)).toHaveLength(3);
        expect(callPids(gw).size).toBe(2);
      } finally {
        await gw.stop();
        await redis.stop();
      }
    },
    SLOW,
  );
});

describe('a worker that cannot start', () => {
  let holder: Server;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it(
    'stops the primary with its error once, rather than being forked again and again',
    async () => {
      const { port } = holder.address() as { port: number };
      const dir = mkdtempSync(join(tmpdir(), 'mcpb-workers-'));
      try {
        const file = join(dir, 'spec.mcp.kdl');
        writeFileSync(file, spec());
        const r = await runCli(['serve', file, '--workers', '2', '--http', `127.0.0.1:${port}`]);
        expect(r.code).toBe(1);
        const said = r.stderr.split('\n').filter((l) => l.includes('cannot listen on'));
        expect(said).toHaveLength(1);
        expect(r.stdout).not.toContain('a worker died: replacing it');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
