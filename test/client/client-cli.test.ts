/**
 * `mcp-beaver tools <url>`, `call` and `discover` (issue 9), run as a user would
 * (the real CLI in a child process) against:
 *   (a) the gateway itself, in each protocol era, behind an api-key `access` block;
 *   (b) a session-ful 2025-era server written here with the v1 SDK's stateful
 *       transport: the assigned Mcp-Session-Id comes back on later requests and is
 *       DELETEd on close, and --header reaches every request;
 *   (c) a raw server that answers only with SSE, each JSON answer spread over
 *       several `data:` lines;
 *   (d) servers answering 500, a JSON-RPC error, a 400 carrying one, or nothing.
 * Everything listens on 127.0.0.1:0; every CLI run carries --timeout.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type TestGateway } from '../helpers/gateway.js';
import {
  answerJson,
  startUpstream,
  type RecordedRequest,
  type Upstream,
} from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import {
  ACME_ONLY,
  issueCommentGrant,
  issuesServerHeader,
  listIssuesGrant,
} from '../helpers/spec-fixtures.js';
import { ENVELOPE_GUIDE } from '../../src/compiler/output-schema.js';

const UPSTREAM_TOKEN = 'upstream-credential-3c1f';
const MCP_KEY = 'mcp-key-for-the-cli-9a7e4d';

function gatewaySpec(upstream: string): string {
  return [
    issuesServerHeader(upstream),
    'access {\n    api-key env="MCP_KEYS" scopes="issues:read"\n}',
    ACME_ONLY,
    listIssuesGrant({ scopes: ['issues:read'] }),
    issueCommentGrant(['issues:read']),
  ].join('\n');
}

/**
 * Runs the CLI with a bound on each request and the gateway key in MCP_TOKEN. The bound
 * (30 s) is loose enough for a busy machine and ends a hung request inside the test's own.
 */
function cli(args: string[], input?: string): Promise<CliResult> {
  return runCli([...args, '--timeout', '30s'], {
    env: { MCP_TOKEN: MCP_KEY },
    ...(input !== undefined && { input }),
  });
}

/** Failures are one line on stderr. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0]!;
}

let upstream: Upstream;
let gw: TestGateway;
let mcpUrl: string;

useGatewayOnUpstream(
  gatewaySpec,
  {
    answer: answerJson((req) => [{ number: 7, title: 'seven', path: req.path, query: req.query }]),
    env: { ISSUES_TOKEN: UPSTREAM_TOKEN, MCP_KEYS: MCP_KEY },
  },
  (s) => {
    ({ upstream, gw } = s);
    mcpUrl = `${gw.url}/mcp`;
  },
);

// ---------------------------------------------------------------------------------
// (a) the gateway, in each era

const ERAS = ['modern', 'legacy', 'auto'] as const;

describe.each(ERAS)('against mcp-beaver serve, --era %s', (era) => {
  const auth = ['--bearer-env', 'MCP_TOKEN', '--era', era];

  it('tools lists name, title and hints; --json gives the tools/list result', async () => {
    const r = await cli(['tools', mcpUrl, ...auth]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^list_issues +List issues +read-only idempotent open-world\ncreate_issue_comment +Create issue comment +write open-world\n$/,
    );
    const j = await cli(['tools', mcpUrl, '--json', ...auth]);
    expect(j.code).toBe(0);
    const list = JSON.parse(j.stdout) as { tools: { name: string; inputSchema: unknown }[] };
    expect(list.tools.map((t) => t.name)).toEqual(['list_issues', 'create_issue_comment']);
    expect(list.tools[0]!.inputSchema).toMatchObject({
      type: 'object',
      required: ['owner', 'repo'],
    });
  });

  it('call with inline JSON prints structuredContent, indented', async () => {
    const before = upstream.requests.length;
    const r = await cli([
      'call',
      mcpUrl,
      'list_issues',
      '{"owner":"acme","repo":"rocket","state":"closed"}',
      ...auth,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\n  "coverage": {');
    const envelope = JSON.parse(r.stdout) as { result: unknown };
    expect(envelope.result).toEqual([
      { number: 7, title: 'seven', path: '/api/repos/acme/rocket/issues', query: 'state=closed' },
    ]);
    expect(upstream.requests.length).toBe(before + 1);
    // The caller's key authenticates it to the gateway and goes no further.
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
  });

  it('call reads the arguments from @file and from stdin (-)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaver-call-'));
    const file = join(dir, 'args.json');
    writeFileSync(file, '{"owner":"acme","repo":"from-file"}');
    const fromFile = await cli(['call', mcpUrl, 'list_issues', `@${file}`, ...auth]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      result: [{ path: '/api/repos/acme/from-file/issues' }],
    });
    const fromStdin = await cli(
      ['call', mcpUrl, 'list_issues', '-', ...auth],
      '{"owner":"acme","repo":"from-stdin"}\n',
    );
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({
      result: [{ path: '/api/repos/acme/from-stdin/issues' }],
    });
  });

  it('call takes name=value words, typed by the tool schema (an integer a number, a string as given)', async () => {
    const before = upstream.requests.length;
    const r = await cli([
      'call',
      mcpUrl,
      'create_issue_comment',
      'owner=acme',
      'repo=rocket',
      'number=7',
      'body=42',
      ...auth,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(upstream.requests.length).toBe(before + 1);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/api/repos/acme/rocket/issues/7/comments');
    expect(JSON.parse(sent.body)).toEqual({ body: '42' });
  });

  it('call name:=json gives the JSON value whatever the schema says', async () => {
    const before = upstream.requests.length;
    // "7" for an integer: refused by the gateway, not sent.
    const raw = await cli([
      'call',
      mcpUrl,
      'create_issue_comment',
      'owner=acme',
      'repo=rocket',
      'number:="7"',
      'body=x',
      ...auth,
    ]);
    expect(raw.code).toBe(1);
    expect(raw.stderr).toContain('INVALID_ARGUMENTS');
    expect(upstream.requests.length).toBe(before);
  });

  it('call refuses a word its schema type cannot take, before calling', async () => {
    const before = upstream.requests.length;
    const bad = await cli(['call', mcpUrl, 'create_issue_comment', 'number=seven', ...auth]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad)).toBe('mcp-beaver call: argument number: "seven" is not a number');
    expect(upstream.requests.length).toBe(before);
  });

  it('call exits 1 with the message on stderr when the result is isError', async () => {
    const before = upstream.requests.length;
    const r = await cli(['call', mcpUrl, 'list_issues', '{"owner":"evil","repo":"x"}', ...auth]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('DENIED_BY_RESTRICT');
    expect(r.stderr).toContain('owner');
    expect(upstream.requests.length).toBe(before);
  });

  it('call of an unknown tool exits 2 with the JSON-RPC code on one line', async () => {
    const r = await cli(['call', mcpUrl, 'no_such_tool', ...auth]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(
      new RegExp(
        `^mcp-beaver: ${escape(mcpUrl)}: (HTTP 4\\d\\d [^:]+: )?JSON-RPC -32602: .*no_such_tool`,
      ),
    );
  });

  it('without the key: exit 2, one line naming HTTP 401', async () => {
    const r = await cli(['tools', mcpUrl, '--era', era]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(new RegExp(`^mcp-beaver: ${escape(mcpUrl)}: HTTP 401`));
  });
});

describe('discover against mcp-beaver serve', () => {
  it('modern: the server/discover result', async () => {
    const r = await cli(['discover', mcpUrl, '--era', 'modern', '--bearer-env', 'MCP_TOKEN']);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(d.supportedVersions).toContain('2026-07-28');
    expect(d).toMatchObject({
      serverInfo: { name: 'issues-test', version: '2.1.0' },
      instructions: `Read issues of the acme organisation.\n\n${ENVELOPE_GUIDE}`,
      resultType: 'complete',
      cacheScope: expect.any(String),
      ttlMs: expect.any(Number),
    });
  });

  it('legacy: the initialize result', async () => {
    const r = await cli(['discover', mcpUrl, '--era', 'legacy', '--bearer-env', 'MCP_TOKEN']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'issues-test', version: '2.1.0' },
      instructions: `Read issues of the acme organisation.\n\n${ENVELOPE_GUIDE}`,
    });
  });

  it('a key given with --header works like --bearer-env', async () => {
    const r = await runCli(
      ['tools', mcpUrl, '--header', `Authorization: Bearer ${MCP_KEY}`, '--timeout', '30s'],
      {},
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^list_issues /);
  });
});

// ---------------------------------------------------------------------------------
// (b) a session-ful 2025-era server (v1 SDK, stateful transport)

interface Seen {
  http: string;
  rpc: string | undefined;
  session: string | undefined;
  headers: IncomingHttpHeaders;
}

interface SessionServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function startSessionServer(): Promise<SessionServer> {
  const seen: Seen[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as { method?: string }) : undefined;
        const session = req.headers['mcp-session-id'] as string | undefined;
        seen.push({ http: req.method ?? '', rpc: body?.method, session, headers: req.headers });
        let transport = session === undefined ? undefined : sessions.get(session);
        if (!transport) {
          if (req.method !== 'POST' || !isInitializeRequest(body)) {
            // What the SDK's own stateful example answers without a valid session.
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({
                jsonrpc: '2.0',
                error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
                id: null,
              }),
            );
            return;
          }
          const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void sessions.set(id, t),
            onsessionclosed: (id) => void sessions.delete(id),
          });
          const mcp = new McpServer(
            { name: 'session-legacy', version: '0.9.0' },
            { instructions: 'A stateful 2025 server.' },
          );
          mcp.registerTool(
            'whoami',
            {
              title: 'Who am I',
              description: 'The session id.',
              annotations: { readOnlyHint: true },
            },
            (extra) => ({ content: [{ type: 'text', text: `session ${extra.sessionId}` }] }),
          );
          await mcp.connect(t);
          transport = t;
        }
        await transport.handleRequest(req, res, body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('against a session-ful 2025 server (v1 SDK, stateful)', () => {
  let s: SessionServer;
  beforeAll(async () => {
    s = await startSessionServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it.each(['legacy', 'auto'] as const)(
    '--era %s: the assigned session id goes back on every later request and is DELETEd on close; --header reaches every request',
    async (era) => {
      s.seen.length = 0;
      const r = await cli(['call', s.url, 'whoami', '--era', era, '--header', 'X-Trace: trace-7']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const id = /^session (\S+)\n$/.exec(r.stdout)?.[1];
      expect(id).toBeDefined();

      const init = s.seen.findIndex((q) => q.rpc === 'initialize');
      expect(init).toBeGreaterThanOrEqual(0);
      expect(s.seen[init]!.session).toBeUndefined();
      if (era === 'auto') {
        // The probe came first, was refused for lack of a session, and the client fell back.
        expect(s.seen[0]).toMatchObject({ http: 'POST', rpc: 'server/discover' });
      }
      const later = s.seen.slice(init + 1);
      expect(later.map((q) => `${q.http} ${q.rpc ?? ''}`.trim())).toEqual(
        expect.arrayContaining(['POST notifications/initialized', 'POST tools/call', 'DELETE']),
      );
      for (const q of later) expect(q.session, `${q.http} ${q.rpc}`).toBe(id);
      expect(s.seen.at(-1)).toMatchObject({ http: 'DELETE', session: id });
      for (const q of s.seen) expect(q.headers['x-trace']).toBe('trace-7');
      // The DELETE ended the session on the server.
      const after = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(after.status).toBe(400);
    },
    30_000,
  );

  it('tools and discover work against it too', async () => {
    const t = await cli(['tools', s.url]);
    expect(t.code).toBe(0);
    expect(t.stdout).toBe('whoami  Who am I  read-only idempotent open-world\n');
    const d = await cli(['discover', s.url]);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.stdout)).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'session-legacy', version: '0.9.0' },
      instructions: 'A stateful 2025 server.',
    });
  });

  it('--era modern refuses it in one line', async () => {
    const r = await cli(['tools', s.url, '--era', 'modern']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(new RegExp(`^mcp-beaver: ${escape(s.url)}: .*2026-07-28`));
  });
});

// ---------------------------------------------------------------------------------
// (c) SSE only, JSON spread over several data: lines; (d) errors

interface Rpc {
  id?: number | string;
  method: string;
  params?: { name?: string; arguments?: Record<string, unknown> };
}

const INITIALIZE_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'raw', version: '1.0.0' },
};

const ECHO_TOOL = {
  name: 'echo',
  title: 'Echo',
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

type Answer = ({ result: unknown } | { error: unknown }) & { status?: number };
type Send = (res: ServerResponse, message: unknown, status?: number) => void;

/** A hand-written 2025 server: `answer` gives a result or an error (and its HTTP status). */
function rawServer(send: Send, answer: (rpc: Rpc) => Answer | 'hang' | 'http-500') {
  return (req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const rpc = JSON.parse(req.body) as Rpc;
    if (rpc.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const a = answer(rpc);
    if (a === 'hang') return;
    if (a === 'http-500') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('database exploded');
      return;
    }
    const { status, ...outcome } = a;
    send(res, { jsonrpc: '2.0', id: rpc.id, ...outcome }, status);
  };
}

function standardAnswers(rpc: Rpc): Answer {
  if (rpc.method === 'initialize') return { result: INITIALIZE_RESULT };
  if (rpc.method === 'tools/list') return { result: { tools: [ECHO_TOOL] } };
  if (rpc.method === 'tools/call') {
    return {
      result: {
        content: [{ type: 'text', text: JSON.stringify(rpc.params?.arguments) }],
        structuredContent: { echo: rpc.params?.arguments },
      },
    };
  }
  return { error: { code: -32601, message: `Method not found: ${rpc.method}` } };
}

/** One SSE event whose data is the answer pretty-printed: one `data:` line per JSON line. */
const sendSse: Send = (res, message) => {
  const data = JSON.stringify(message, null, 2)
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`event: message\nid: ev-1\n${data}\n`);
};

const sendJson: Send = (res, message, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
};

describe('against a server that answers only with SSE, JSON over several data: lines', () => {
  let sse: Upstream;
  beforeAll(async () => {
    sse = await startUpstream(rawServer(sendSse, standardAnswers));
  });
  afterAll(async () => {
    await sse?.close();
  });

  it.each(['legacy', 'auto'] as const)('--era %s: call parses the event', async (era) => {
    const r = await cli(['call', `${sse.url}/mcp`, 'echo', '{"a":[1,2],"b":"x"}', '--era', era]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ echo: { a: [1, 2], b: 'x' } });
    const call = sse.requests.find((q) => q.body.includes('"tools/call"'));
    expect(call?.headers.accept).toContain('text/event-stream');
  });

  it('tools parses the event too', async () => {
    const r = await cli(['tools', `${sse.url}/mcp`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('echo  Echo  read-only idempotent closed-world\n');
  });
});

describe('errors: one readable line, exit 2', () => {
  let failing: Upstream;
  let rpcErrors: Upstream;
  beforeAll(async () => {
    failing = await startUpstream(rawServer(sendJson, () => 'http-500'));
    rpcErrors = await startUpstream(
      rawServer(sendJson, (rpc) => {
        if (rpc.method !== 'tools/call') return standardAnswers(rpc);
        if (rpc.params?.name === 'slow') return 'hang';
        if (rpc.params?.name === 'bad') {
          const message = 'Invalid params: x\nmust be an integer';
          return { status: 400, error: { code: -32602, message } };
        }
        return { error: { code: -32603, message: 'database on fire' } };
      }),
    );
  });
  afterAll(async () => {
    await failing?.close();
    await rpcErrors?.close();
  });

  it.each(['legacy', 'auto'] as const)('a server answering 500 (--era %s)', async (era) => {
    const url = `${failing.url}/mcp`;
    const r = await cli(['tools', url, '--era', era]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toBe(
      `mcp-beaver: ${url}: HTTP 500 Internal Server Error: database exploded`,
    );
  });

  it('a JSON-RPC error', async () => {
    const url = `${rpcErrors.url}/mcp`;
    const r = await cli(['call', url, 'boom']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(`mcp-beaver: ${url}: JSON-RPC -32603: database on fire`);
  });

  it('an HTTP 400 carrying a JSON-RPC error names both', async () => {
    const url = `${rpcErrors.url}/mcp`;
    const r = await cli(['call', url, 'bad', '--era', 'legacy']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      `mcp-beaver: ${url}: HTTP 400 Bad Request: JSON-RPC -32602: Invalid params: x must be an integer`,
    );
  });

  it('no answer within --timeout', async () => {
    const url = `${rpcErrors.url}/mcp`;
    const r = await runCli(['call', url, 'slow', '--timeout', '1s']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(new RegExp(`^mcp-beaver: ${escape(url)}: no answer within 1000 ms`));
  });

  it('nothing listening', async () => {
    const closed = await startUpstream();
    const url = `${closed.url}/mcp`;
    await closed.close();
    const r = await cli(['tools', url]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      `mcp-beaver: ${url}: cannot connect: connect ECONNREFUSED ${url.slice(7, -4)}`,
    );
  });

  it('a port fetch refuses (9, discard) is named as such, with another to use', async () => {
    const r = await cli(['tools', 'http://127.0.0.1:9/mcp']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      'mcp-beaver: http://127.0.0.1:9/mcp: cannot connect: port 9 is one that fetch refuses (it belongs to another protocol); serve on another port, such as 8080',
    );
  });

  it('usage errors exit 2 without contacting anything', async () => {
    const url = `${rpcErrors.url}/mcp`;
    const before = rpcErrors.requests.length;
    const bad = await cli(['call', url, 'echo', '[1]']);
    expect(bad.code).toBe(2);
    expect(oneLine(bad)).toBe('mcp-beaver call: the arguments are not a JSON object');
    const unset = await cli(['tools', url, '--bearer-env', 'BEAVER_TEST_UNSET_VAR']);
    expect(unset.code).toBe(2);
    expect(oneLine(unset)).toBe(
      'mcp-beaver tools: --bearer-env BEAVER_TEST_UNSET_VAR: the variable is not set',
    );
    const era = await cli(['discover', url, '--era', 'newest']);
    expect(era.code).toBe(2);
    expect(rpcErrors.requests.length).toBe(before);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
