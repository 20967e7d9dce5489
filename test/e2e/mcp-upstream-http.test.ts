/**
 * Issue 28 end to end over Streamable HTTP: `tool` grants of upstream MCP servers served
 * by the real gateway to real clients (the SDK v2 client in both eras, the JSON-RPC POST,
 * REST). The upstreams are server-everything in its Streamable HTTP mode (2025 era, with
 * a session) and a 2026-07-28 SDK v2 server that records every request, so each case
 * asserts exactly what the upstream received, or that it received nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTool, postToolCall, type Era } from '../helpers/call-tool.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { MODERN } from '../helpers/mcp-wire.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import { runCli } from '../helpers/run-cli.js';
import {
  freePort,
  startEverythingHttp,
  stopProcess,
  until,
} from '../mcp-upstream/upstream-helpers.js';

const UPSTREAM_TOKEN = 'trk_gw_7Qm2pX9vL4sN8dR3';
const READ_KEY = 'read-key-5b1c9e';
const WRITE_KEY = 'write-key-8f2a6d';
const ENV = {
  TRACKER_MCP_TOKEN: UPSTREAM_TOKEN,
  READ_KEYS: READ_KEY,
  WRITE_KEYS: WRITE_KEY,
};

function httpSpec(tracker: string, everything: string, down: string): string {
  return `
wrap "upstream-http" version="1.0.0"
access {
    api-key env="READ_KEYS" scopes="issues:read"
    api-key env="WRITE_KEYS" scopes="issues:read issues:write"
}
restrict {
    repo "web" "api"
}
mcp-server "tracker" url="${tracker}" {
    auth bearer env="TRACKER_MCP_TOKEN"
    header "X-Team" "triage"
    timeout "10s"
}
mcp-server "everything" url="${everything}"
mcp-server "gone" url="${down}" {
    timeout "2s"
}
can search issues {
    describe "Search issues of the acme organisation."
    tool "tracker" "search_issues"
    args {
        query "string" required=#true max-length=20 pattern="^[a-z ]+$"
        limit "integer" min=1 max=50 default=20 as="perPage"
        repo "string"
    }
    set {
        arg "owner" "acme"
    }
    scope "issues:read"
}
can create issue-comment {
    describe "Comment on one issue."
    tool "tracker" "add_comment"
    args {
        issue "integer" required=#true min=1
        body "string" required=#true max-length=100
    }
    set {
        arg "owner" "acme"
    }
    scope "issues:write"
}
can get broken {
    describe "A tool that fails."
    tool "tracker" "broken"
}
can get missing {
    describe "A tool the tracker does not have."
    tool "tracker" "no_such_tool"
}
can get slow {
    describe "A tool slower than its grant allows."
    tool "tracker" "slow"
    args {
        ms "integer" required=#true min=0 max=5000
    }
    timeout "200ms"
}
can list rows {
    describe "Many rows, under a small cap."
    tool "tracker" "big"
    args {
        n "integer" required=#true min=1 max=1000
    }
    max-bytes 2048
}
can get search-titles {
    describe "Only what pick keeps."
    tool "tracker" "search_issues"
    args {
        query "string" required=#true max-length=20
    }
    pick "received.query" "total"
}
can get echo {
    describe "Echo back, by server-everything."
    tool "everything" "echo"
    args {
        message "string" required=#true max-length=200
    }
}
can get sum {
    describe "Add two numbers, by server-everything."
    tool "everything" "get-sum"
    args {
        a "number" required=#true
        b "number" required=#true
    }
}
can get gone-echo {
    describe "A tool of a server that is down."
    tool "gone" "echo"
}
`;
}

interface Envelope<R = unknown> {
  coverage: { truncated: boolean; bytes: number };
  result: R;
}

/** The gateway's tools/list as the SDK v2 client reads it. */
async function listTools(url: string, era: Era, key: string) {
  const client = new Client(
    { name: 'mcp-beaver-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

const rest = (gw: TestGateway, tool: string, args: unknown, key = WRITE_KEY) =>
  postJson(`${gw.url}/api/${tool}`, args, { authorization: `Bearer ${key}` });

const errorCode = (json: unknown): string | undefined =>
  (json as { error?: { code: string } }).error?.code;

/** A request server-everything got through the recording proxy in front of it. */
interface Proxied {
  readonly method: string | undefined;
  readonly session: string | undefined;
}

/**
 * A pass-through proxy in front of server-everything that records each request's
 * JSON-RPC method and `Mcp-Session-Id`, its answers (event streams included) piped back.
 */
async function recordingProxy(target: number, seen: Proxied[]): Promise<Server> {
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let method: string | undefined;
      try {
        method = (JSON.parse(raw.toString('utf8')) as { method?: string }).method;
      } catch {
        method = undefined;
      }
      const session = req.headers['mcp-session-id'];
      seen.push({ method, session: typeof session === 'string' ? session : undefined });
      const out = request(
        {
          host: '127.0.0.1',
          port: target,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(raw);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return proxy;
}

let tracker: RecordingServer;
let everything: ChildProcess;
let proxy: Server;
const everythingSaw: Proxied[] = [];
let gw: TestGateway;

beforeAll(async () => {
  tracker = await startRecordingServer();
  const port = await freePort();
  everything = await startEverythingHttp(port);
  proxy = await recordingProxy(port, everythingSaw);
  const proxied = (proxy.address() as { port: number }).port;
  const down = await freePort();
  gw = await startGateway(
    httpSpec(tracker.url, `http://127.0.0.1:${proxied}/mcp`, `http://127.0.0.1:${down}/mcp`),
    { env: ENV },
  );
  await until(() => {
    const s = (gw.gateway.readiness() as { servers: Record<string, string> }).servers;
    return s.tracker === 'up' && s.gone === 'down';
  }, 20_000);
});
afterEach(() => {
  tracker.received.length = 0;
});
afterAll(async () => {
  await gw?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await stopProcess(everything);
  await tracker?.close();
});

describe('tools/list serves the grants as written', () => {
  it.each<Era>(['modern', 'legacy'])('to a %s client holding every scope', async (era) => {
    const tools = await listTools(gw.url, era, WRITE_KEY);
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'search_issues',
        'create_issue_comment',
        'get_broken',
        'get_missing',
        'get_slow',
        'list_rows',
        'get_search_titles',
        'get_echo',
        'get_sum',
        'get_gone_echo',
      ].sort(),
    );
    const search = tools.find((t) => t.name === 'search_issues')!;
    expect(search.description).toContain('Search issues of the acme organisation.');
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(['query', 'limit', 'repo']);
    // Open world is MCP's default for a tool, so only read-only is said.
    expect(search.annotations).toEqual({ readOnlyHint: true });
  });

  it('leaves out of a read key’s list the grant needing issues:write', async () => {
    const names = (await listTools(gw.url, 'modern', READ_KEY)).map((t) => t.name);
    expect(names).toContain('search_issues');
    expect(names).not.toContain('create_issue_comment');
  });
});

describe('a call reaches the 2026-07-28 upstream with exactly the declared and pinned arguments', () => {
  it.each<Era>(['modern', 'legacy'])('from a %s SDK client', async (era) => {
    const out = await callTool<Envelope>(
      gw.url,
      'search_issues',
      { query: 'crash', repo: 'web' },
      { era, key: READ_KEY },
    );
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent?.result).toEqual({
      received: { query: 'crash', repo: 'web', perPage: 20, owner: 'acme' },
      total: 1,
    });
    const calls = tracker.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('search_issues');
    expect(calls[0]!.arguments).toEqual({
      query: 'crash',
      repo: 'web',
      perPage: 20,
      owner: 'acme',
    });
    expect(calls[0]!.headers).toMatchObject({
      authorization: `Bearer ${UPSTREAM_TOKEN}`,
      'x-team': 'triage',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'search_issues',
    });
  });

  it('over REST, the envelope holding the structured result', async () => {
    const r = await rest(gw, 'create_issue_comment', { issue: 7, body: 'seen it' });
    expect(r.status).toBe(200);
    expect((r.json as Envelope).result).toEqual({
      created: { issue: 7, body: 'seen it', owner: 'acme' },
    });
    expect(tracker.calls().map((c) => c.arguments)).toEqual([
      { issue: 7, body: 'seen it', owner: 'acme' },
    ]);
  });

  it('a caller cannot override a pinned value: an owner argument is undeclared', async () => {
    const r = await rest(gw, 'search_issues', { query: 'crash', owner: 'evil' });
    expect(r.status).toBe(400);
    expect(errorCode(r.json)).toBe('INVALID_ARGUMENTS');
    expect(tracker.calls()).toEqual([]);
  });
});

describe('arguments outside the grant are refused and the upstream receives nothing', () => {
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['an undeclared argument', { query: 'crash', perPage: 1000 }, 400, 'INVALID_ARGUMENTS'],
    ['a value outside restrict', { query: 'crash', repo: 'secrets' }, 403, 'DENIED_BY_RESTRICT'],
    ['a value not matching the pattern', { query: 'crash; drop' }, 400, 'INVALID_ARGUMENTS'],
    ['a value over max-length', { query: 'a'.repeat(21) }, 400, 'INVALID_ARGUMENTS'],
    ['an integer above max', { query: 'crash', limit: 51 }, 400, 'INVALID_ARGUMENTS'],
  ];

  it.each(cases)('%s, over REST', async (_what, args, status, code) => {
    const r = await rest(gw, 'search_issues', args);
    expect(r.status).toBe(status);
    expect(errorCode(r.json)).toBe(code);
    expect(tracker.calls()).toEqual([]);
  });

  it.each(cases)('%s, over MCP in both eras', async (_what, args, _status, code) => {
    for (const era of ['modern', 'legacy'] as const) {
      const out = await callTool(gw.url, 'search_issues', args, { era, key: READ_KEY });
      expect(out.isError).toBe(true);
      expect(out.content[0]!.text.startsWith(`${code}:`)).toBe(true);
    }
    expect(tracker.calls()).toEqual([]);
  });

  it('a grant outside the key’s scopes is refused with 403, nothing sent', async () => {
    const r = await rest(gw, 'create_issue_comment', { issue: 1, body: 'x' }, READ_KEY);
    expect(r.status).toBe(403);
    expect(errorCode(r.json)).toBe('INSUFFICIENT_SCOPE');
    const m = await postToolCall(
      gw.url,
      'create_issue_comment',
      { issue: 1, body: 'x' },
      {
        key: READ_KEY,
      },
    );
    expect(m.status).toBe(403);
    expect(tracker.calls()).toEqual([]);
  });
});

describe('upstream failures map to their codes', () => {
  it('an isError result is UPSTREAM_TOOL_ERROR carrying the upstream text', async () => {
    const r = await rest(gw, 'get_broken', {});
    expect(r.status).toBe(502);
    expect((r.json as { error: unknown }).error).toMatchObject({
      code: 'UPSTREAM_TOOL_ERROR',
      message:
        'mcp-server tracker, tool "broken" answered with an error: the tracker is read-only today',
    });
    const out = await callTool(gw.url, 'get_broken', {}, { key: READ_KEY });
    expect(out.isError).toBe(true);
    expect(out.content[0]!.text).toMatch(/^UPSTREAM_TOOL_ERROR: .*read-only today/);
  });

  it('a JSON-RPC error (an unknown tool) is UPSTREAM_ERROR', async () => {
    const r = await rest(gw, 'get_missing', {});
    expect(r.status).toBe(502);
    expect((r.json as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringContaining('JSON-RPC error -32602'),
    });
    expect(tracker.calls().map((c) => c.name)).toEqual(['no_such_tool']);
  });

  it('no answer within the grant’s timeout is UPSTREAM_TIMEOUT', async () => {
    const r = await rest(gw, 'get_slow', { ms: 3_000 });
    expect(r.status).toBe(504);
    expect(errorCode(r.json)).toBe('UPSTREAM_TIMEOUT');
    const out = await callTool(gw.url, 'get_slow', { ms: 3_000 }, { era: 'legacy', key: READ_KEY });
    expect(out.isError).toBe(true);
    expect(out.content[0]!.text).toMatch(/^UPSTREAM_TIMEOUT/);
  });

  it('a server that is down is UPSTREAM_UNAVAILABLE, and the other grants still serve', async () => {
    const r = await rest(gw, 'get_gone_echo', {});
    expect(r.status).toBe(503);
    expect(errorCode(r.json)).toBe('UPSTREAM_UNAVAILABLE');
    const out = await callTool(gw.url, 'get_gone_echo', {}, { key: READ_KEY });
    expect(out.isError).toBe(true);
    expect(out.content[0]!.text).toMatch(/^UPSTREAM_UNAVAILABLE/);
    const ok = await rest(gw, 'search_issues', { query: 'still here' });
    expect(ok.status).toBe(200);
  });

  it('/readyz is 200 with every server’s state, the one down named', async () => {
    const r = await fetch(`${gw.url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      status: 'ready',
      servers: { tracker: 'up', everything: 'up', gone: 'down' },
    });
  });
});

describe('the envelope over an upstream result', () => {
  it('cuts a result larger than max-bytes, and says so', async () => {
    const r = await rest(gw, 'list_rows', { n: 500 });
    expect(r.status).toBe(200);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(2048);
    const env = r.json as Envelope<{ rows: unknown[] }>;
    expect(env.coverage.truncated).toBe(true);
    expect(env.coverage.bytes).toBeGreaterThan(2048);
    const out = await callTool<Envelope>(gw.url, 'list_rows', { n: 500 }, { key: READ_KEY });
    expect(Buffer.byteLength(out.content[0]!.text)).toBeLessThanOrEqual(2048);
    expect(out.structuredContent?.coverage.truncated).toBe(true);
  });

  it('pick keeps only the named fields of the upstream result', async () => {
    const r = await rest(gw, 'get_search_titles', { query: 'crash' });
    expect(r.status).toBe(200);
    expect((r.json as Envelope).result).toEqual({ received: { query: 'crash' }, total: 1 });
  });
});

describe('server-everything over Streamable HTTP, a 2025-era server with a session', () => {
  it.each<Era>(['modern', 'legacy'])('serves echo and get-sum to a %s client', async (era) => {
    const echo = await callTool<Envelope>(
      gw.url,
      'get_echo',
      { message: 'hi' },
      {
        era,
        key: READ_KEY,
      },
    );
    expect(echo.structuredContent?.result).toBe('Echo: hi');
    const sum = await callTool<Envelope>(gw.url, 'get_sum', { a: 2, b: 3 }, { era, key: READ_KEY });
    expect(JSON.stringify(sum.structuredContent?.result)).toContain('5');
  });

  it('is initialized once, and every call goes on that one session', async () => {
    await callTool(gw.url, 'get_echo', { message: 'session' }, { key: READ_KEY });
    const initialize = everythingSaw.filter((r) => r.method === 'initialize');
    expect(initialize).toHaveLength(1);
    expect(initialize[0]!.session).toBeUndefined();
    const calls = everythingSaw.filter((r) => r.method === 'tools/call');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const sessions = new Set(calls.map((c) => c.session));
    expect(sessions.size).toBe(1);
    expect([...sessions][0]).toMatch(/^[\x21-\x7e]+$/);
  });

  it('over REST, refusing an argument over max-length before any call', async () => {
    const before = everythingSaw.length;
    const r = await rest(gw, 'get_echo', { message: 'x'.repeat(201) });
    expect(r.status).toBe(400);
    expect(everythingSaw.length).toBe(before);
    const ok = await rest(gw, 'get_echo', { message: 'over rest' });
    expect((ok.json as Envelope).result).toBe('Echo: over rest');
  });
});

describe('drift: the upstream drops a granted tool', () => {
  let upstream: RecordingServer;
  let drifting: TestGateway;
  const spec = (url: string) => `
wrap "drift" version="1.0.0"
mcp-server "tracker" url="${url}" {
    auth bearer env="TRACKER_MCP_TOKEN"
}
can create issue-comment {
    describe "Comment on one issue."
    tool "tracker" "add_comment"
    args {
        issue "integer" required=#true
        body "string" required=#true
    }
}
can get drop {
    describe "Makes the upstream drop add_comment."
    tool "tracker" "drop_add_comment"
}
`;

  beforeAll(async () => {
    upstream = await startRecordingServer();
    drifting = await startGateway(spec(upstream.url), { env: ENV, file: 'drift.mcp.kdl' });
    await until(
      () =>
        (drifting.gateway.readiness() as { servers: { tracker: string } }).servers.tracker === 'up',
    );
  });
  afterAll(async () => {
    await drifting?.close();
    await upstream?.close();
  });

  it('logs a warning naming the grant and its file:line on list_changed, still lists the grant, and maps the upstream’s answer', async () => {
    expect(drifting.logs()).not.toContain('drift:');
    const dropped = await callTool(drifting.url, 'get_drop', {});
    expect(dropped.isError).toBeFalsy();
    await until(() => drifting.logs().includes('grant create_issue_comment'));
    expect(drifting.logs()).toMatch(
      /drift: drift\.mcp\.kdl:6: grant create_issue_comment: mcp-server tracker does not list the tool \\"add_comment\\"/,
    );
    const names = (await listTools(drifting.url, 'modern', 'none')).map((t) => t.name);
    expect(names).toContain('create_issue_comment');
    const out = await callTool(drifting.url, 'create_issue_comment', { issue: 1, body: 'x' });
    expect(out.isError).toBe(true);
    expect(out.content[0]!.text).toMatch(/^UPSTREAM_ERROR: .*tool "add_comment".*-32602/);
  });
});

describe('mcp-beaver check --live against the HTTP upstream', () => {
  let upstream: RecordingServer;
  let dir: string;
  const spec = (url: string, tool: string) => `
wrap "live" version="1.0.0"
mcp-server "tracker" url="${url}" {
    auth bearer env="TRACKER_MCP_TOKEN"
}
can search issues {
    describe "Search issues."
    tool "tracker" "${tool}"
    args {
        query "string" required=#true
    }
}
`;

  beforeAll(async () => {
    upstream = await startRecordingServer();
    dir = mkdtempSync(join(tmpdir(), 'mcp-live-'));
  });
  afterAll(async () => {
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 when every grant matches the upstream’s tools', async () => {
    const file = join(dir, 'ok.mcp.kdl');
    writeFileSync(file, spec(upstream.url, 'search_issues'));
    const r = await runCli(['check', '--live', file], { env: ENV });
    expect(r.stderr).not.toContain('drift');
    expect(r.code).toBe(0);
  });

  it('exits 1 naming the grant and its line when the upstream dropped the tool', async () => {
    upstream.dropped.add('search_issues');
    const file = join(dir, 'drifted.mcp.kdl');
    writeFileSync(file, spec(upstream.url, 'search_issues'));
    const r = await runCli(['check', '--live', file], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      'grant search_issues: mcp-server tracker does not list the tool "search_issues" (drift)',
    );
    expect(r.stdout + r.stderr).toContain('drifted.mcp.kdl:6: grant search_issues');
    expect(r.stdout + r.stderr).not.toContain(UPSTREAM_TOKEN);
  });
});
