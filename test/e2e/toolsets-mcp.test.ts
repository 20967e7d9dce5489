/**
 * Toolsets over MCP (spec-language.md, "Served at `/mcp/<toolset>`"): each toolset is an
 * endpoint of its own at `/mcp/<toolset>`, in both eras, through the SDK v2 client. Its
 * lists hold only its members in spec order, then what the caller's scopes allow; its
 * instructions put its `describe` first; a non-member is the error `/mcp` gives a name
 * the spec does not have, and nothing runs; `/mcp` still serves everything. The wire
 * checks compare raw answers of a toolset and of `/mcp` byte for byte where they must
 * agree.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import {
  ALL_TOOLS,
  connectTo,
  ERAS,
  FULL_KEY,
  KEYS_ENV,
  READER_KEY,
  SERVER_DESCRIBE,
  TRIAGE_DESCRIBE,
  TRIAGE_TOOLS,
  toolsetsSpec,
  type Era,
} from '../helpers/toolsets-spec.js';
import { ENVELOPE_GUIDE } from '../../src/compiler/output-schema.js';

/** A spec without toolsets, resources or prompts: what `/mcp` answers where a kind is absent. */
const PLAIN_SPEC = (upstream: string): string => `
wrap "plain" version="1.0.0"
base-url "${upstream}/api"
can get invoice {
    path "/invoices/{id}" {
        id "integer" min=1
    }
}
`;

let upstream: Upstream;
let gw: TestGateway;
let plain: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: Number(req.path.split('/').at(-1)), path: req.path }));
  });
  gw = await startGateway(toolsetsSpec({ upstream: upstream.url }), { env: KEYS_ENV });
  plain = await startGateway(PLAIN_SPEC(upstream.url));
});

afterAll(async () => {
  await gw?.close();
  await plain?.close();
  await upstream?.close();
});

const triage = (): string => `${gw.url}/mcp/triage`;
const billing = (): string => `${gw.url}/mcp/billing`;

/** `fn` with a connected client, closed after. */
async function withClient<T>(
  url: string,
  era: Era,
  key: string | undefined,
  fn: (c: Awaited<ReturnType<typeof connectTo>>) => Promise<T>,
): Promise<T> {
  const c = await connectTo(url, era, key);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

describe.each(ERAS)('the SDK v2 client in %s at /mcp/<toolset>', (_version, era) => {
  it('reads the toolset describe before the gateway instructions, and only its capabilities', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      expect(c.getInstructions()).toBe(
        `${TRIAGE_DESCRIBE}\n\n${SERVER_DESCRIBE}\n\n${ENVELOPE_GUIDE}`,
      );
      expect(c.getServerCapabilities()).toEqual({
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      });
    });
    // Without a describe, the same instructions as /mcp; and no resources or prompts.
    await withClient(billing(), era, FULL_KEY, async (c) => {
      expect(c.getInstructions()).toBe(`${SERVER_DESCRIBE}\n\n${ENVELOPE_GUIDE}`);
      expect(c.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    });
  });

  it('lists only the members, in spec order, then only what the key scopes allow', async () => {
    const names = (key: string) =>
      withClient(triage(), era, key, async (c) => (await c.listTools()).tools.map((t) => t.name));
    expect(await names(FULL_KEY)).toEqual(TRIAGE_TOOLS);
    // READER_KEYS lack billing:read: get_invoice is a member it may not see.
    expect(await names(READER_KEY)).toEqual(['list_tickets', 'get_ticket']);
    const billingNames = await withClient(billing(), era, READER_KEY, async (c) =>
      (await c.listTools()).tools.map((t) => t.name),
    );
    expect(billingNames).toEqual([]);
  });

  it('runs a member once upstream, and refuses a non-member as an unknown tool with nothing sent', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      const before = upstream.requests.length;
      const got = (await c.callTool({ name: 'get_ticket', arguments: { id: 4 } })) as {
        isError?: boolean;
        structuredContent?: unknown;
      };
      expect(got.isError).toBe(false);
      expect(got.structuredContent).toMatchObject({ result: { id: 4, path: '/api/tickets/4' } });
      expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(['/api/tickets/4']);

      const after = upstream.requests.length;
      await expect(c.callTool({ name: 'get_customer', arguments: { id: 4 } })).rejects.toThrow(
        'Unknown tool: "get_customer"',
      );
      expect(upstream.requests.length).toBe(after);
    });
  });

  it('lists and reads its member resources, and reads a member backed by a non-member grant', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(['docs://handbook']);
      expect((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(
        ['helpdesk://customers/{id}'],
      );
      const handbook = await c.readResource({ uri: 'docs://handbook' });
      expect(handbook.contents).toEqual([
        { uri: 'docs://handbook', mimeType: 'text/plain', text: 'Be kind and quick.' },
      ]);
      // get_customer is no member, yet the member template it backs reads through it.
      const before = upstream.requests.length;
      const customer = await c.readResource({ uri: 'helpdesk://customers/9' });
      expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(['/api/customers/9']);
      const text = (customer.contents[0] as { text: string }).text;
      expect(JSON.parse(text)).toMatchObject({ result: { id: 9 } });
    });
  });

  it('reads no non-member resource: not found, and the upstream is not called', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      const before = upstream.requests.length;
      await expect(c.readResource({ uri: 'docs://billing-policy' })).rejects.toThrow(
        /docs:\/\/billing-policy/,
      );
      await expect(c.readResource({ uri: 'helpdesk://tickets/5' })).rejects.toThrow(
        /helpdesk:\/\/tickets\/5/,
      );
      expect(upstream.requests.length).toBe(before);
    });
  });

  it('gets its member prompt, which embeds a non-member template, and no other prompt', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(['triage-ticket']);
      const got = await c.getPrompt({ name: 'triage-ticket', arguments: { id: '3' } });
      expect(got.messages[0]).toEqual({
        role: 'user',
        content: { type: 'text', text: 'Triage ticket 3 in a friendly tone.' },
      });
      expect(got.messages[1]!.content).toMatchObject({
        type: 'resource',
        resource: { uri: 'helpdesk://tickets/3' },
      });
      await expect(c.getPrompt({ name: 'dun-customer' })).rejects.toThrow(
        'Unknown prompt: "dun-customer"',
      );
    });
  });

  it('completes a member prompt argument, and a non-member prompt is unknown', async () => {
    await withClient(triage(), era, FULL_KEY, async (c) => {
      const done = await c.complete({
        ref: { type: 'ref/prompt', name: 'triage-ticket' },
        argument: { name: 'tone', value: 'fo' },
      });
      expect(done.completion).toMatchObject({ values: ['formal'], total: 1, hasMore: false });
      await expect(
        c.complete({
          ref: { type: 'ref/prompt', name: 'dun-customer' },
          argument: { name: 'tone', value: 'f' },
        }),
      ).rejects.toThrow('Unknown prompt: "dun-customer"');
    });
  });

  it('leaves /mcp serving everything with the gateway instructions', async () => {
    await withClient(`${gw.url}/mcp`, era, FULL_KEY, async (c) => {
      expect(c.getInstructions()).toBe(`${SERVER_DESCRIBE}\n\n${ENVELOPE_GUIDE}`);
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
      expect((await c.listResources()).resources.map((r) => r.uri)).toEqual([
        'docs://handbook',
        'docs://billing-policy',
      ]);
      expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual([
        'triage-ticket',
        'dun-customer',
      ]);
      const got = (await c.callTool({ name: 'get_customer', arguments: { id: 2 } })) as {
        isError?: boolean;
      };
      expect(got.isError).toBe(false);
    });
  });
});

// ---------------------------------------------------------------------------------
// The wire: what a toolset answers where it must agree with /mcp

let nextId = 1;

/** One JSON-RPC request in `era` to `url`, with the headers 2026-07-28 mirrors. */
function rpc(
  url: string,
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
  /** The bearer credential; null sends none. */
  key: string | null = FULL_KEY,
): ReturnType<typeof postJson> {
  const name =
    method === 'resources/read' ? params.uri : method === 'prompts/get' ? params.name : undefined;
  const mirrored =
    method === 'tools/call' ? params.name : typeof name === 'string' ? name : undefined;
  const modern = era === 'modern';
  return postJson(
    url,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: modern ? { ...params, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } } : params,
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern ? MODERN : LEGACY,
      ...(modern && { 'mcp-method': method }),
      ...(modern && typeof mirrored === 'string' && { 'mcp-name': mirrored }),
      ...(key !== null && { authorization: `Bearer ${key}` }),
    },
  );
}

/** The answer's status and error with its id dropped, `name` spelled as `as`. */
function errorOf(r: Awaited<ReturnType<typeof postJson>>, name?: string, as?: string): unknown {
  const text = name === undefined ? r.text : r.text.split(name).join(as!);
  const { error } = JSON.parse(text) as { error?: unknown };
  return { status: r.status, error };
}

describe.each(ERAS)('the wire in %s', (_version, era) => {
  it.each([
    ['tools/call', 'get_customer', (n: string) => ({ name: n, arguments: { id: 1 } })],
    ['resources/read', 'docs://billing-policy', (n: string) => ({ uri: n })],
    ['prompts/get', 'dun-customer', (n: string) => ({ name: n })],
    [
      'completion/complete',
      'dun-customer',
      (n: string) => ({
        ref: { type: 'ref/prompt', name: n },
        argument: { name: 'tone', value: 'f' },
      }),
    ],
  ] as const)(
    '%s of the non-member %s is the very error /mcp gives a name the spec lacks',
    async (method, member, params) => {
      const absent = method === 'resources/read' ? 'docs://no-such-doc' : 'no-such-name';
      const before = upstream.requests.length;
      const onToolset = await rpc(triage(), era, method, params(member));
      const onMcp = await rpc(`${gw.url}/mcp`, era, method, params(absent));
      expect(onToolset.json).toHaveProperty('error');
      expect(errorOf(onToolset, member, absent)).toEqual(errorOf(onMcp));
      expect(upstream.requests.length).toBe(before);
    },
  );

  it.each(['resources/list', 'resources/templates/list', 'resources/read'])(
    '%s on a toolset without resources is the -32601 of /mcp on a spec without them',
    async (method) => {
      const params = method === 'resources/read' ? { uri: 'docs://handbook' } : {};
      const onToolset = errorOf(await rpc(billing(), era, method, params));
      const onPlain = errorOf(await rpc(`${plain.url}/mcp`, era, method, params));
      expect(onToolset).toMatchObject({
        status: (onPlain as { status: number }).status,
        error: {
          code: -32601,
          message: `Method not found: ${method} (toolset "billing" has no member of its kind)`,
        },
      });
      expect((onPlain as { error: { code: number } }).error.code).toBe(-32601);
    },
  );

  it('answers prompts/list on a toolset without prompts with -32601', async () => {
    const r = await rpc(billing(), era, 'prompts/list');
    expect((r.json as { error: { code: number } }).error.code).toBe(-32601);
  });
});

describe('the toolset URL as HTTP', () => {
  it('answers a name that is no toolset with 404 NOT_FOUND naming the path and the toolsets', async () => {
    const r = await rpc(`${gw.url}/mcp/shipping`, 'legacy', 'tools/list');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      error: {
        code: 'NOT_FOUND',
        message:
          'nothing is served at POST /mcp/shipping: the spec has no toolset "shipping" (its toolsets: /mcp/triage, /mcp/billing)',
      },
    });
  });

  it('answers /mcp/ (a slash too many) with 404 naming /mcp, not a toolset without a name', async () => {
    const r = await rpc(`${gw.url}/mcp/`, 'legacy', 'tools/list');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      error: {
        code: 'NOT_FOUND',
        message:
          'nothing is served at POST /mcp/: the MCP endpoint is /mcp (its toolsets: /mcp/triage, /mcp/billing)',
      },
    });
  });

  it('says the spec has no toolsets when it has none', async () => {
    const r = await rpc(`${plain.url}/mcp/triage`, 'modern', 'tools/list', {}, null);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      error: {
        code: 'NOT_FOUND',
        message:
          'nothing is served at POST /mcp/triage: the spec has no toolset "triage" (this spec has no toolsets)',
      },
    });
  });

  it('checks the credential first: a stranger gets the 401 of /mcp at a toolset and at a name that is none', async () => {
    const onMcp = await rpc(`${gw.url}/mcp`, 'legacy', 'tools/list', {}, null);
    expect(onMcp.status).toBe(401);
    for (const path of ['/mcp/triage', '/mcp/shipping']) {
      const r = await rpc(`${gw.url}${path}`, 'legacy', 'tools/list', {}, null);
      expect(r.status, path).toBe(401);
      expect(r.text, path).toBe(onMcp.text);
      expect(r.headers.get('www-authenticate'), path).toBe('Bearer');
    }
  });

  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])(
    'answers %s at a toolset URL as /mcp does: 405 with Allow: POST',
    async (method) => {
      const [onToolset, onMcp] = await Promise.all(
        [triage(), `${gw.url}/mcp`].map((url) => fetch(url, { method })),
      );
      expect(onToolset!.status).toBe(405);
      expect(onToolset!.headers.get('allow')).toBe('POST');
      expect(await onToolset!.text()).toBe(await onMcp!.text());
    },
  );

  it('serves tools/list of a toolset as one SSE event to a client that takes only a stream', async () => {
    const res = await fetch(triage(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'mcp-protocol-version': LEGACY,
        authorization: `Bearer ${FULL_KEY}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const text = await res.text();
    const data = JSON.parse(text.slice(text.indexOf('data: ') + 6)) as {
      result: { tools: { name: string }[] };
    };
    expect(data.result.tools.map((t) => t.name)).toEqual(TRIAGE_TOOLS);
  });
});

describe('a reload', () => {
  it('serves the toolsets of the new spec: a dropped one is 404, an added one answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaver-toolsets-reload-'));
    const file = join(dir, 'toolsets.mcp.kdl');
    const first = toolsetsSpec({ upstream: upstream.url });
    writeFileSync(file, first);
    const reloading = await startGateway(first, { env: KEYS_ENV, specFile: file });
    try {
      const before = await rpc(`${reloading.url}/mcp/billing`, 'legacy', 'tools/list');
      expect(before.status).toBe(200);
      writeFileSync(
        file,
        first.replace('toolset "billing" {', 'toolset "invoices" {\n    describe "Invoices."'),
      );
      await expect(reloading.reload()).resolves.toMatchObject({ ok: true, generation: 2 });
      const dropped = await rpc(`${reloading.url}/mcp/billing`, 'legacy', 'tools/list');
      expect(dropped.status).toBe(404);
      expect(dropped.text).toContain('(its toolsets: /mcp/triage, /mcp/invoices)');
      await withClient(`${reloading.url}/mcp/invoices`, 'modern', FULL_KEY, async (c) => {
        expect(c.getInstructions()).toBe(`Invoices.\n\n${SERVER_DESCRIBE}\n\n${ENVELOPE_GUIDE}`);
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['get_invoice']);
      });
    } finally {
      await reloading.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
