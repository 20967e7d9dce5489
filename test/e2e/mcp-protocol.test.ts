/**
 * Raw HTTP against POST /mcp: every status/code row of docs protocol.md, for both
 * protocol eras, with the upstream's request count proving what did (not) run.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { ENVELOPE_GUIDE } from '../../src/compiler/output-schema.js';
import { MODERN, LEGACY, META_VERSION, META_CAPS, META_SERVER } from '../helpers/mcp-wire.js';
import {
  ACME_ONLY,
  getIssueGrant,
  issueCommentGrant,
  listIssuesGrant,
} from '../helpers/spec-fixtures.js';

const ALL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const ACCEPT_BOTH = 'application/json, text/event-stream';
const ALLOWED_ORIGIN = 'https://console.example.com';
const READER_KEY = 'inbound-reader-key-123';
const WRITER_KEY = 'inbound-writer-key-456';

const TOOL = 'list_issues';
const GOOD_ARGS = { owner: 'acme', repo: 'rocket' };

function spec(upstream: string, access = ''): string {
  return `
wrap "proto-test" version="3.4.5" {
    title "Protocol test"
    describe "Read and comment on issues of the acme organisation."
}
base-url "${upstream}/api"
${ACME_ONLY}
${access}
${listIssuesGrant({ perPage: true })}
${getIssueGrant()}
${issueCommentGrant(access ? ['issues:write'] : [])}
`;
}

type RpcId = string | number | null;

interface RpcMessage {
  jsonrpc: string;
  id: RpcId;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: RpcMessage;
}

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: { coverage: unknown; result: unknown };
  isError: boolean;
  resultType?: string;
  _meta?: Record<string, unknown>;
}

let upstream: Upstream;
let gw: TestGateway;
let gwAccess: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify([{ number: 1, title: 'first', path: req.path }]));
  });
  gw = await startGateway(spec(upstream.url));
  gwAccess = await startGateway(
    spec(
      upstream.url,
      `access {\n    api-key env="K" scopes="x"\n    api-key env="W" scopes="x issues:write"\n    allow-origin "${ALLOWED_ORIGIN}"\n}`,
    ),
    { env: { K: READER_KEY, W: WRITER_KEY } },
  );
});

afterAll(async () => {
  await gw?.close();
  await gwAccess?.close();
  await upstream?.close();
});

function parse(text: string): RpcMessage {
  try {
    return JSON.parse(text) as RpcMessage;
  } catch {
    return undefined as unknown as RpcMessage;
  }
}

/** POST to /mcp with fetch; no response may ever carry a session id. */
async function post(
  body: unknown,
  headers: Record<string, string | undefined> = {},
  base = gw.url,
  path = '/mcp',
): Promise<Reply> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    ...headers,
  })) {
    if (v !== undefined) h[k] = v;
  }
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: h,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.headers.get('mcp-session-id')).toBeNull();
  return { status: res.status, headers: res.headers, text, json: parse(text) };
}

/** node:http, for what fetch will not do: set Host, or send no Accept at all. */
function raw(opts: {
  method?: string;
  path?: string;
  headers?: Record<string, string | string[]>;
  body?: string;
}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; json: RpcMessage }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gw.url}${opts.path ?? '/mcp'}`,
      { method: opts.method ?? 'POST', headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          expect(res.headers['mcp-session-id']).toBeUndefined();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

function legacy(method: string, params?: Record<string, unknown>, id: RpcId = 1): unknown {
  return { jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) };
}

function modernMeta(version = MODERN): Record<string, unknown> {
  return { [META_VERSION]: version, [META_CAPS]: {} };
}

function modern(method: string, params: Record<string, unknown> = {}, id: RpcId = 1): unknown {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name !== undefined && { 'mcp-name': name }),
  };
}

function b64(s: string): string {
  return `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

const callBody = (name = TOOL, args: unknown = GOOD_ARGS): unknown =>
  modern('tools/call', { name, arguments: args });

/** Runs `fn` and asserts the upstream saw exactly `expected` new requests meanwhile. */
async function upstreamDelta<T>(expected: number, fn: () => Promise<T>): Promise<T> {
  const before = upstream.requests.length;
  const out = await fn();
  expect(upstream.requests.length - before).toBe(expected);
  return out;
}

function expectRpcError(r: { status: number; json: RpcMessage }, status: number, code: number) {
  expect(r.status).toBe(status);
  expect(r.json?.jsonrpc).toBe('2.0');
  expect(r.json?.error?.code).toBe(code);
  expect(r.json?.result).toBeUndefined();
}

describe('legacy era (2025-11-25 and earlier)', () => {
  it('answers initialize with version, tools capability, server info and instructions, and mints no session', async () => {
    const r = await post(
      legacy('initialize', {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: 'raw', version: '0' },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', id: 1 });
    expect(r.json.result).toEqual({
      protocolVersion: LEGACY,
      capabilities: { tools: expect.any(Object) },
      serverInfo: expect.objectContaining({ name: 'proto-test', version: '3.4.5' }),
      instructions: `Read and comment on issues of the acme organisation.\n\n${ENVELOPE_GUIDE}`,
    });
    expect(r.json.result).not.toHaveProperty('resultType');
    expect(r.headers.has('mcp-session-id')).toBe(false);
  });

  it('answers notifications/initialized with 202 and an empty body', async () => {
    const r = await post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-protocol-version': LEGACY },
    );
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('lists the tools in spec order without resultType when MCP-Protocol-Version is 2025-11-25', async () => {
    const r = await post(legacy('tools/list', {}, 2), { 'mcp-protocol-version': LEGACY });
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(2);
    const result = r.json.result as { tools: { name: string; inputSchema: unknown }[] };
    expect(result.tools.map((t) => t.name)).toEqual([
      'list_issues',
      'get_issue',
      'create_issue_comment',
    ]);
    expect(result.tools[0]!.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
    });
    expect(result).not.toHaveProperty('resultType');
    expect(result).not.toHaveProperty('_meta');
  });

  it('calls a tool and returns the envelope as structuredContent and as identical text, coverage first', async () => {
    const r = await upstreamDelta(1, () =>
      post(legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS }, 'call-1'), {
        'mcp-protocol-version': LEGACY,
      }),
    );
    expect(r.status).toBe(200);
    expect(r.json.id).toBe('call-1');
    const result = r.json.result as unknown as ToolResult;
    expect(result.isError).toBe(false);
    expect(result.content).toHaveLength(1);
    expect(result.content[0]!.type).toBe('text');
    expect(Object.keys(result.structuredContent!)).toEqual(['coverage', 'result']);
    expect(result.content[0]!.text).toBe(JSON.stringify(result.structuredContent));
    expect(result.content[0]!.text.startsWith('{"coverage":')).toBe(true);
    expect(r.text).toContain('"structuredContent":{"coverage":');
    expect(result.structuredContent!.result).toEqual([
      { number: 1, title: 'first', path: '/api/repos/acme/rocket/issues' },
    ]);
    expect(result).not.toHaveProperty('resultType');
  });

  it('answers ping with an empty object', async () => {
    const r = await post(legacy('ping', undefined, 9), { 'mcp-protocol-version': LEGACY });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('counter-offers 2025-11-25 to an initialize asking for an unknown version', async () => {
    const r = await post(
      legacy('initialize', { protocolVersion: '2024-01-01', capabilities: {} }),
      { 'mcp-protocol-version': '2024-01-01' },
    );
    expect(r.status).toBe(200);
    expect(r.json.result?.protocolVersion).toBe('2025-11-25');
  });

  it('echoes 2025-06-18 to an initialize asking for it', async () => {
    const r = await post(legacy('initialize', { protocolVersion: '2025-06-18', capabilities: {} }));
    expect(r.status).toBe(200);
    expect(r.json.result?.protocolVersion).toBe('2025-06-18');
  });

  it('serves a request with no MCP-Protocol-Version header and no _meta as 2025-03-26', async () => {
    const list = await post(legacy('tools/list'));
    expect(list.status).toBe(200);
    expect((list.json.result as { tools: unknown[] }).tools).toHaveLength(3);
    const call = await upstreamDelta(1, () =>
      post(legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS })),
    );
    expect(call.status).toBe(200);
    expect((call.json.result as unknown as ToolResult).isError).toBe(false);
  });

  it.each(['2025-06-18', '2025-03-26'])(
    'serves tools/list with the legacy MCP-Protocol-Version header %s',
    async (version) => {
      const r = await post(legacy('tools/list'), { 'mcp-protocol-version': version });
      expect(r.status).toBe(200);
      expect(r.json.result).toHaveProperty('tools');
    },
  );

  it('rejects a legacy request whose MCP-Protocol-Version header is unsupported with 400, running nothing', async () => {
    const r = await upstreamDelta(0, () =>
      post(legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS }), {
        'mcp-protocol-version': '1999-01-01',
      }),
    );
    expectRpcError(r, 400, -32600);
    expect(r.json.error!.message).toContain('1999-01-01');
  });

  it.each(['resources/list', 'server/discover', '__proto__', 'constructor', 'toString'])(
    'answers the unknown legacy method %s with JSON-RPC -32601',
    async (method) => {
      const r = await post(legacy(method, {}, 5), { 'mcp-protocol-version': LEGACY });
      expectRpcError(r, 200, -32601);
      expect(r.json.id).toBe(5);
    },
  );
});

describe('modern era (2026-07-28)', () => {
  it('answers server/discover without any handshake with versions, capabilities, identity and cache hints', async () => {
    const r = await post(modern('server/discover'), modernHeaders('server/discover'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const res = r.json.result!;
    expect(res.supportedVersions).toEqual(expect.arrayContaining(ALL_VERSIONS));
    expect(res.capabilities).toMatchObject({ tools: expect.any(Object) });
    expect(res.serverInfo).toMatchObject({ name: 'proto-test', version: '3.4.5' });
    expect(res.instructions).toBe(
      `Read and comment on issues of the acme organisation.\n\n${ENVELOPE_GUIDE}`,
    );
    expect(res.resultType).toBe('complete');
    expect(Number.isInteger(res.ttlMs)).toBe(true);
    expect(res.ttlMs as number).toBeGreaterThanOrEqual(0);
    expect(res.cacheScope).toBe('public');
    expect((res._meta as Record<string, unknown>)[META_SERVER]).toMatchObject({
      name: 'proto-test',
      version: '3.4.5',
    });
  });

  it('lists tools with cache hints, resultType and server info in _meta', async () => {
    const r = await post(modern('tools/list'), modernHeaders('tools/list'));
    expect(r.status).toBe(200);
    const res = r.json.result!;
    expect((res.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'list_issues',
      'get_issue',
      'create_issue_comment',
    ]);
    expect(Number.isInteger(res.ttlMs)).toBe(true);
    expect(res.cacheScope).toBe('public');
    expect(res.resultType).toBe('complete');
    expect((res._meta as Record<string, unknown>)[META_SERVER]).toMatchObject({
      name: 'proto-test',
      version: '3.4.5',
    });
  });

  it('calls a tool and returns structuredContent with resultType and _meta', async () => {
    const r = await upstreamDelta(1, () => post(callBody(), modernHeaders('tools/call', TOOL)));
    expect(r.status).toBe(200);
    const res = r.json.result as unknown as ToolResult;
    expect(res.isError).toBe(false);
    expect(res.resultType).toBe('complete');
    expect(res._meta?.[META_SERVER]).toMatchObject({ name: 'proto-test', version: '3.4.5' });
    expect(Object.keys(res.structuredContent!)).toEqual(['coverage', 'result']);
    expect(res.content[0]!.text).toBe(JSON.stringify(res.structuredContent));
  });

  it('accepts an Mcp-Name sent base64-wrapped that decodes to the tool name', async () => {
    const r = await upstreamDelta(1, () =>
      post(callBody(), { ...modernHeaders('tools/call'), 'mcp-name': b64(TOOL) }),
    );
    expect(r.status).toBe(200);
    expect((r.json.result as unknown as ToolResult).isError).toBe(false);
  });

  const mismatches: [string, Record<string, string | undefined>][] = [
    ['the MCP-Protocol-Version header is missing', { 'mcp-protocol-version': undefined }],
    [
      'the MCP-Protocol-Version header differs from _meta',
      { 'mcp-protocol-version': '2025-11-25' },
    ],
    ['the Mcp-Method header is missing', { 'mcp-method': undefined }],
    ['the Mcp-Method header differs from the body method', { 'mcp-method': 'tools/list' }],
    ['the Mcp-Name header is missing', { 'mcp-name': undefined }],
    ['the Mcp-Name header differs from params.name', { 'mcp-name': 'get_issue' }],
    ['the Mcp-Name header differs only by case', { 'mcp-name': 'LIST_ISSUES' }],
    [
      'the base64-wrapped Mcp-Name decodes to a different name',
      { 'mcp-name': b64('create_issue_comment') },
    ],
    ['the base64-wrapped Mcp-Name is not valid base64', { 'mcp-name': '=?base64?%%%?=' }],
  ];
  it.each(mismatches)(
    'rejects a tools/call with 400 -32020 and does not run the tool when %s',
    async (_why, override) => {
      const r = await upstreamDelta(0, () =>
        post(callBody(), { ...modernHeaders('tools/call', TOOL), ...override }),
      );
      expectRpcError(r, 400, -32020);
      expect(r.json.id).toBe(1);
    },
  );

  it('rejects a tools/call carrying two Mcp-Name headers with 400 -32020 and runs nothing', async () => {
    const r = await upstreamDelta(0, () =>
      raw({
        headers: {
          'content-type': 'application/json',
          ...modernHeaders('tools/call'),
          'mcp-name': [TOOL, 'create_issue_comment'],
        },
        body: JSON.stringify(callBody()),
      }),
    );
    expectRpcError(r, 400, -32020);
  });

  it('rejects an unsupported _meta version with 400 -32022 listing every served version', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: TOOL, arguments: GOOD_ARGS, _meta: modernMeta('2099-01-01') },
    };
    const r = await upstreamDelta(0, () =>
      post(body, {
        ...modernHeaders('tools/call', TOOL),
        'mcp-protocol-version': '2099-01-01',
      }),
    );
    expectRpcError(r, 400, -32022);
    const data = r.json.error!.data as { supported: string[]; requested: string };
    expect([...data.supported].sort()).toEqual([...ALL_VERSIONS].sort());
    expect(data.requested).toBe('2099-01-01');
  });

  it('rejects a modern MCP-Protocol-Version header on a body with no _meta claim instead of downgrading', async () => {
    const r = await upstreamDelta(0, () =>
      post(
        legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS }),
        modernHeaders('tools/call', TOOL),
      ),
    );
    expectRpcError(r, 400, -32602);
  });

  it('rejects a modern request without _meta clientCapabilities with 400 -32602', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: TOOL, arguments: GOOD_ARGS, _meta: { [META_VERSION]: MODERN } },
    };
    const r = await upstreamDelta(0, () => post(body, modernHeaders('tools/call', TOOL)));
    expectRpcError(r, 400, -32602);
    expect(r.json.error!.message).toContain('clientCapabilities');
  });

  it.each(['ping', 'initialize', 'logging/setLevel', '__proto__', 'constructor', 'resources/list'])(
    'answers the method %s, which does not exist in this era, with 404 -32601',
    async (method) => {
      const r = await post(modern(method, {}, 6), modernHeaders(method));
      expectRpcError(r, 404, -32601);
      expect(r.json.id).toBe(6);
    },
  );
});

describe('tools/call failures in both eras', () => {
  const eras = [
    [
      'legacy',
      (name: string, args: unknown) => legacy('tools/call', { name, arguments: args }),
      (_name: string) => ({ 'mcp-protocol-version': LEGACY }) as Record<string, string>,
    ],
    [
      'modern',
      (name: string, args: unknown) => callBody(name, args),
      (name: string) => modernHeaders('tools/call', name),
    ],
  ] as const;

  describe.each(eras)('in the %s era', (era, body, headers) => {
    it.each(['no_such_tool', 'hasOwnProperty', '__proto__', 'constructor', 'toString'])(
      'answers a call of the unknown tool %s with JSON-RPC -32602 and runs nothing',
      async (name) => {
        const r = await upstreamDelta(0, () => post(body(name, GOOD_ARGS), headers(name)));
        expectRpcError(r, 200, -32602);
      },
    );

    it.each([
      ['an array', [1, 2]],
      ['a string', 'owner=acme'],
      ['a number', 42],
      ['null', null],
    ])('answers arguments that are %s with JSON-RPC -32602 and runs nothing', async (_w, args) => {
      const r = await upstreamDelta(0, () => post(body(TOOL, args), headers(TOOL)));
      expectRpcError(r, 200, -32602);
    });

    it('answers a tools/call without a name with an error and runs nothing', async () => {
      const b = body(TOOL, GOOD_ARGS) as { params: Record<string, unknown> };
      delete b.params.name;
      const h: Record<string, string | undefined> = { ...headers(TOOL), 'mcp-name': undefined };
      const r = await upstreamDelta(0, () => post(b, h));
      // The modern era refuses first: the required Mcp-Name header has nothing to mirror.
      if (era === 'modern') expectRpcError(r, 400, -32020);
      else expectRpcError(r, 200, -32602);
    });

    it('returns isError naming the field when restrict denies an argument, without calling upstream', async () => {
      const r = await upstreamDelta(0, () =>
        post(body(TOOL, { owner: 'evil', repo: 'rocket' }), headers(TOOL)),
      );
      expect(r.status).toBe(200);
      const res = r.json.result as unknown as ToolResult;
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toBeUndefined();
      expect(res.content[0]!.text).toContain('DENIED_BY_RESTRICT');
      expect(res.content[0]!.text).toContain('owner');
    });

    it('returns isError naming the field when an argument is invalid, without calling upstream', async () => {
      const r = await upstreamDelta(0, () =>
        post(body(TOOL, { ...GOOD_ARGS, per_page: 500 }), headers(TOOL)),
      );
      expect(r.status).toBe(200);
      const res = r.json.result as unknown as ToolResult;
      expect(res.isError).toBe(true);
      expect(res.content[0]!.text).toContain('per_page');
    });

    it('returns isError naming an unknown argument, without calling upstream', async () => {
      const r = await upstreamDelta(0, () =>
        post(body(TOOL, { ...GOOD_ARGS, sneaky: 1 }), headers(TOOL)),
      );
      expect(r.status).toBe(200);
      const res = r.json.result as unknown as ToolResult;
      expect(res.isError).toBe(true);
      expect(res.content[0]!.text).toContain('sneaky');
    });

    it('accepts a tools/call sent as a notification with 202 and never runs it', async () => {
      const b = body(TOOL, GOOD_ARGS) as Record<string, unknown>;
      delete b.id;
      const r = await upstreamDelta(0, () => post(b, headers(TOOL)));
      expect(r.status).toBe(202);
      expect(r.text).toBe('');
    });
  });
});

describe('JSON-RPC framing', () => {
  it('rejects a batch with 400 -32600 and runs none of it', async () => {
    const call = legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS });
    const r = await upstreamDelta(0, () => post([call, call]));
    expectRpcError(r, 400, -32600);
    expect(r.json.id).toBeNull();
  });

  it('rejects a JSON-RPC response posted by the client with 400 -32600', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, result: {} });
    expectRpcError(r, 400, -32600);
    expect(r.json.id).toBeNull();
  });

  it.each([
    ['an object', {}],
    ['a boolean', true],
    ['a fraction', 1.5],
    ['null', null],
    ['an array', [1]],
  ])('rejects an id that is %s with 400 -32600 and id null', async (_w, id) => {
    const r = await upstreamDelta(0, () =>
      post({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: TOOL, arguments: GOOD_ARGS },
      }),
    );
    expectRpcError(r, 400, -32600);
    expect(r.json.id).toBeNull();
  });

  it.each([
    ['a number', 42],
    ['an object', { toString: 'tools/list' }],
    ['null', null],
  ])('rejects a method that is %s with 400 -32600', async (_w, method) => {
    const r = await post({ jsonrpc: '2.0', id: 7, method });
    expectRpcError(r, 400, -32600);
  });

  it('rejects a message that is not JSON-RPC 2.0 with 400 -32600', async () => {
    const r = await post({ jsonrpc: '1.0', id: 1, method: 'tools/list' });
    expectRpcError(r, 400, -32600);
  });

  it('rejects params that are not an object with 400 -32600', async () => {
    const r = await upstreamDelta(0, () =>
      post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: [TOOL, GOOD_ARGS] }),
    );
    expectRpcError(r, 400, -32600);
  });

  it.each([
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":'],
    ['not JSON at all', 'hello'],
    ['an empty body', ''],
  ])('answers %s with 400 and a JSON-RPC -32700 body', async (_w, text) => {
    const r = await post(text);
    expectRpcError(r, 400, -32700);
    expect(r.json.id).toBeNull();
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.json).sort()).toEqual(['error', 'id', 'jsonrpc']);
  });

  it('answers malformed JSON sent as text/plain with a JSON-RPC -32700 body too', async () => {
    const r = await post('{oops', { 'content-type': 'text/plain' });
    expectRpcError(r, 400, -32700);
  });

  it('serves a body just under 4 MiB', async () => {
    const pad = 'x'.repeat(4 * 1024 * 1024 - 200);
    const r = await post(legacy('ping', { pad }));
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual({});
  });

  it('refuses a body over 4 MiB with 413', async () => {
    const pad = 'x'.repeat(4 * 1024 * 1024 + 16);
    const r = await upstreamDelta(0, () =>
      post(legacy('tools/call', { name: TOOL, arguments: { ...GOOD_ARGS, pad } })),
    );
    expect(r.status).toBe(413);
    expect(r.json?.error?.code).toBe(-32600);
  });
});

describe('HTTP transport', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])(
    'answers %s /mcp with 405 and Allow: POST',
    async (method) => {
      const res = await fetch(`${gw.url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'abc' },
        ...((method === 'PUT' || method === 'PATCH') && {
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        }),
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('mcp-session-id')).toBeNull();
      await res.text();
    },
  );

  it('serves a request carrying Mcp-Session-Id and Last-Event-ID normally, echoing no session', async () => {
    const r = await upstreamDelta(1, () =>
      post(legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS }), {
        'mcp-protocol-version': LEGACY,
        'mcp-session-id': 'session-from-elsewhere',
        'last-event-id': '42',
      }),
    );
    expect(r.status).toBe(200);
    expect((r.json.result as unknown as ToolResult).isError).toBe(false);
  });

  it('answers with one SSE message event when the client accepts only text/event-stream', async () => {
    const r = await post(modern('tools/list'), {
      ...modernHeaders('tools/list'),
      accept: 'text/event-stream',
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.headers.get('x-accel-buffering')).toBe('no');
    const m = /^event: message\ndata: (.+)\n\n$/s.exec(r.text);
    expect(m).not.toBeNull();
    const msg = JSON.parse(m![1]!) as RpcMessage;
    expect(msg.id).toBe(1);
    expect(msg.result).toHaveProperty('tools');
  });

  it('answers with plain JSON when Accept lists both application/json and text/event-stream', async () => {
    const r = await post(legacy('ping'), { accept: ACCEPT_BOTH });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.result).toEqual({});
  });

  it('answers with plain JSON when Accept lists event-stream first with a wildcard after it', async () => {
    const r = await post(legacy('ping'), { accept: 'text/event-stream, */*;q=0.1' });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers with plain JSON when there is no Accept header', async () => {
    const r = await raw({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(legacy('ping')),
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json.result).toEqual({});
  });
});

describe('Origin and Host guard', () => {
  it('serves a request without an Origin header', async () => {
    const r = await post(legacy('ping'));
    expect(r.status).toBe(200);
  });

  it.each(['https://evil.example', 'null', 'http://127.0.0.1.evil.example'])(
    'refuses Origin %s with 403, a JSON-RPC error with id null, and runs no tool',
    async (origin) => {
      const r = await upstreamDelta(0, () =>
        post(callBody(), { ...modernHeaders('tools/call', TOOL), origin }),
      );
      expectRpcError(r, 403, -32600);
      expect(r.json.id).toBeNull();
    },
  );

  it('serves the gateway’s own origin', async () => {
    const r = await post(legacy('ping'), { origin: gw.url });
    expect(r.status).toBe(200);
  });

  it('serves an Origin listed in access allow-origin and still refuses others there', async () => {
    const bearer = `Bearer ${READER_KEY}`;
    const ok = await upstreamDelta(1, () =>
      post(
        callBody(),
        { ...modernHeaders('tools/call', TOOL), origin: ALLOWED_ORIGIN, authorization: bearer },
        gwAccess.url,
      ),
    );
    expect(ok.status).toBe(200);
    expect((ok.json.result as unknown as ToolResult).isError).toBe(false);
    const bad = await upstreamDelta(0, () =>
      post(
        callBody(),
        {
          ...modernHeaders('tools/call', TOOL),
          origin: 'https://evil.example',
          authorization: bearer,
        },
        gwAccess.url,
      ),
    );
    expectRpcError(bad, 403, -32600);
    expect(bad.json.id).toBeNull();
  });

  it.each([
    'evil.example:1234',
    'evil.example',
    '127.0.0.1.evil.example',
    'localhost.evil.example:80',
  ])(
    'refuses Host %s on the loopback-bound gateway with 403 (DNS rebinding) and runs no tool',
    async (host) => {
      const r = await upstreamDelta(0, () =>
        raw({
          headers: {
            host,
            'content-type': 'application/json',
            accept: ACCEPT_BOTH,
            'mcp-protocol-version': LEGACY,
          },
          body: JSON.stringify(legacy('tools/call', { name: TOOL, arguments: GOOD_ARGS })),
        }),
      );
      expectRpcError(r, 403, -32600);
      expect(r.json.id).toBeNull();
    },
  );

  it.each(['localhost', '127.0.0.1', '[::1]'])(
    'serves Host %s:<port> on the loopback-bound gateway',
    async (name) => {
      const port = new URL(gw.url).port;
      const r = await raw({
        headers: { host: `${name}:${port}`, 'content-type': 'application/json' },
        body: JSON.stringify(legacy('ping')),
      });
      expect(r.status).toBe(200);
      expect(r.json.result).toEqual({});
    },
  );
});

describe('authorization with access api-key', () => {
  it.each([
    ['no Authorization header', {}],
    ['an unknown bearer token', { authorization: 'Bearer not-a-key' }],
    [
      'a Basic credential',
      { authorization: `Basic ${Buffer.from(`u:${READER_KEY}`).toString('base64')}` },
    ],
  ] as [string, Record<string, string>][])(
    'refuses a tools/call with %s with 401, a Bearer challenge (no resource_metadata: API keys only), and runs nothing',
    async (_w, auth) => {
      const r = await upstreamDelta(0, () =>
        post(callBody(), { ...modernHeaders('tools/call', TOOL), ...auth }, gwAccess.url),
      );
      expectRpcError(r, 401, -32600);
      expect(r.json.id).toBeNull();
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(r.headers.get('www-authenticate')).not.toContain('resource_metadata');
    },
  );

  it('refuses a key sent in the query string instead of the Authorization header', async () => {
    const r = await upstreamDelta(0, () =>
      post(
        callBody(),
        modernHeaders('tools/call', TOOL),
        gwAccess.url,
        `/mcp?access_token=${READER_KEY}`,
      ),
    );
    expectRpcError(r, 401, -32600);
  });

  it('lists only the tools the key’s scopes allow, marked cacheScope private', async () => {
    const reader = await post(
      modern('tools/list'),
      { ...modernHeaders('tools/list'), authorization: `Bearer ${READER_KEY}` },
      gwAccess.url,
    );
    expect(reader.status).toBe(200);
    expect((reader.json.result!.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'list_issues',
      'get_issue',
    ]);
    expect(reader.json.result!.cacheScope).toBe('private');
    const writer = await post(
      modern('tools/list'),
      { ...modernHeaders('tools/list'), authorization: `Bearer ${WRITER_KEY}` },
      gwAccess.url,
    );
    expect((writer.json.result!.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'list_issues',
      'get_issue',
      'create_issue_comment',
    ]);
  });

  it('refuses a call of a grant outside the key’s scopes with 403 insufficient_scope naming every scope', async () => {
    const args = { owner: 'acme', repo: 'rocket', number: 1, body: 'hi' };
    const r = await upstreamDelta(0, () =>
      post(
        callBody('create_issue_comment', args),
        {
          ...modernHeaders('tools/call', 'create_issue_comment'),
          authorization: `Bearer ${READER_KEY}`,
        },
        gwAccess.url,
      ),
    );
    expectRpcError(r, 403, -32600);
    const challenge = r.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="issues:write"');
  });

  it('never forwards the caller’s Authorization upstream', async () => {
    await upstreamDelta(1, () =>
      post(
        callBody(),
        { ...modernHeaders('tools/call', TOOL), authorization: `Bearer ${WRITER_KEY}` },
        gwAccess.url,
      ),
    );
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain(WRITER_KEY);
  });
});

describe('after the hostile requests', () => {
  it('still answers /healthz with 200', async () => {
    const res = await fetch(`${gw.url}/healthz`);
    expect(res.status).toBe(200);
    await res.text();
  });
});
