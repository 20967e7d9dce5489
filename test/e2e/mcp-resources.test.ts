/**
 * Raw HTTP against POST /mcp for resources, prompts and completions, in both eras
 * (spec-language.md, "Resources and prompts"): every result shape, every error path,
 * and the upstream's request count proving what did (not) run.
 */
import { mkdtempSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { LEGACY, META_CAPS, META_SERVER, META_VERSION, MODERN } from '../helpers/mcp-wire.js';

const READER_KEY = 'inbound-reader-key-123';
const GUEST_KEY = 'inbound-guest-key-456';
const POLICY = '# Refunds\n\nWithin 30 days of purchase.\n';

function spec(upstream: string, access = ''): string {
  return `
wrap "res-test" version="1.2.3"
base-url "${upstream}/api"
restrict {
    status "open" "closed"
}
${access}
can get ticket {
    describe "Get one ticket."
    path "/tickets/{id}" {
        id "integer" min=1
    }
    query {
        status "string" { enum "open" "closed" "pending"; }
        verbose "boolean"
    }
    scope "tickets:read"
}
resource "docs://helpdesk/refund-policy" {
    title "Refund policy"
    describe "When refunds are granted."
    file "docs/policy.md"
}
resource "docs://helpdesk/logo" file="docs/pixel.png" mime="image/png"
resource "docs://helpdesk/hours" text="Mon-Fri 9:00-17:00" describe="Opening hours."
resource "helpdesk://tickets/{id}" from="get_ticket" {
    title "Ticket"
}
resource "helpdesk://tickets/{id}/as/{status}" from="get_ticket" name="ticket-in-status"
resource "helpdesk://tickets/{id}/verbose/{verbose}" from="get_ticket" name="ticket-verbose"
can get ticket-history {
    describe "The history of one ticket; rate limited."
    path "/history/{id}"
    rate-limit "1/h"
}
resource "helpdesk://history/{id}" from="get_ticket_history"
prompt "triage" {
    title "Triage a ticket"
    describe "Read one ticket and propose a priority."
    argument "id" required=#true describe="Ticket id."
    argument "tone" default="friendly" {
        enum "friendly" "formal"
    }
    argument "note" pattern="^[a-z ]*$" max-length=10
    message "user" "Triage ticket {id} in a {tone} tone.{note}"
    message "user" resource="helpdesk://tickets/{id}"
}
prompt "greet" {
    argument "who"
    message "assistant" "Hello {who}, see the hours."
    message "user" resource="docs://helpdesk/hours"
}
`;
}

interface RpcMessage {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

interface Reply {
  status: number;
  headers: Headers;
  json: RpcMessage;
}

let upstream: Upstream;
let gw: TestGateway;
let gwAccess: TestGateway;
let gwTools: TestGateway;
let folder: string;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const id = /^\/api\/tickets\/(\d+)$/.exec(req.path)?.[1];
    if (id === '500') {
      res.statusCode = 500;
      res.end('boom');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: Number(id), query: req.query, subject: `Ticket ${id}` }));
  });
  folder = mkdtempSync(join(tmpdir(), 'mcp-resources-'));
  const docs = join(folder, 'docs');
  (await import('node:fs')).mkdirSync(docs);
  writeFileSync(join(docs, 'policy.md'), POLICY);
  copyFileSync('test/fixtures/pixel.png', join(docs, 'pixel.png'));
  const file = join(folder, 'res.mcp.kdl');
  gw = await startGateway(spec(upstream.url), { file });
  gwAccess = await startGateway(
    spec(
      upstream.url,
      'access {\n    api-key env="R" scopes="tickets:read"\n    api-key env="G" scopes="guest"\n}',
    ),
    { file, env: { R: READER_KEY, G: GUEST_KEY } },
  );
  gwTools = await startGateway(
    `wrap "tools-only" version="1"\nbase-url "${upstream.url}"\ncan get ticket {\n    describe "x"\n    path "/tickets/{id}"\n}\n`,
  );
});

afterAll(async () => {
  await gw?.close();
  await gwAccess?.close();
  await gwTools?.close();
  await upstream?.close();
});

let nextId = 1;

async function post(base: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as RpcMessage };
}

/** A 2026-07-28 request with the headers that mirror its body. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  opts: { base?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const name =
    method === 'resources/read' ? params.uri : method === 'prompts/get' ? params.name : undefined;
  return post(
    opts.base ?? gw.url,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } },
    },
    {
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' && { 'mcp-name': name }),
      ...opts.headers,
    },
  );
}

/** A 2025-11-25 request (after an initialize that a stateless server does not need). */
function legacy(
  method: string,
  params: Record<string, unknown> = {},
  opts: { base?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return post(
    opts.base ?? gw.url,
    { jsonrpc: '2.0', id: nextId++, method, params },
    { 'mcp-protocol-version': LEGACY, ...opts.headers },
  );
}

/** A request to the gateway with `access`, as the holder of `key`. */
const bearer = (key: string) => ({
  base: gwAccess.url,
  headers: { authorization: `Bearer ${key}` },
});

describe('capabilities', () => {
  it('advertises resources, prompts and completions in initialize and server/discover when the spec has them', async () => {
    const init = await legacy('initialize', {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    const discover = await modern('server/discover');
    for (const caps of [init.json.result!.capabilities, discover.json.result!.capabilities]) {
      expect(caps).toEqual({
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      });
    }
  });

  it('advertises only tools for a spec without resources or prompts, and answers their methods as unknown', async () => {
    const init = await legacy(
      'initialize',
      { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      { base: gwTools.url },
    );
    expect(init.json.result!.capabilities).toEqual({ tools: { listChanged: false } });
    const list = await legacy('resources/list', {}, { base: gwTools.url });
    expect(list.json.error!.code).toBe(-32601);
    const prompts = await modern('prompts/list', {}, { base: gwTools.url });
    expect(prompts.status).toBe(404);
    expect(prompts.json.error!.code).toBe(-32601);
  });
});

describe('resources/list and resources/templates/list', () => {
  it('lists fixed resources with uri, name, title, description and mimeType, in spec order (legacy)', async () => {
    const r = await legacy('resources/list');
    expect(r.json.result).toEqual({
      resources: [
        {
          uri: 'docs://helpdesk/refund-policy',
          name: 'refund-policy',
          title: 'Refund policy',
          description: 'When refunds are granted.',
          mimeType: 'text/markdown',
        },
        { uri: 'docs://helpdesk/logo', name: 'logo', mimeType: 'image/png' },
        {
          uri: 'docs://helpdesk/hours',
          name: 'hours',
          description: 'Opening hours.',
          mimeType: 'text/plain',
        },
      ],
    });
  });

  it('lists templates with uriTemplate and carries the 2026-07-28 cache hints on both lists', async () => {
    const templates = await modern('resources/templates/list');
    expect(templates.json.result).toMatchObject({
      resourceTemplates: [
        {
          uriTemplate: 'helpdesk://tickets/{id}',
          name: 'tickets',
          title: 'Ticket',
          mimeType: 'application/json',
        },
        { uriTemplate: 'helpdesk://tickets/{id}/as/{status}', name: 'ticket-in-status' },
        { uriTemplate: 'helpdesk://tickets/{id}/verbose/{verbose}', name: 'ticket-verbose' },
        { uriTemplate: 'helpdesk://history/{id}', name: 'history' },
      ],
      ttlMs: 60_000,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: { [META_SERVER]: { name: 'res-test', version: '1.2.3' } },
    });
    const list = await modern('resources/list');
    expect(list.json.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect((list.json.result!.resources as unknown[]).length).toBe(3);
  });
});

describe('resources/read of fixed resources', () => {
  it('serves a markdown file as text, read at load', async () => {
    const r = await legacy('resources/read', { uri: 'docs://helpdesk/refund-policy' });
    expect(r.json.result).toEqual({
      contents: [{ uri: 'docs://helpdesk/refund-policy', mimeType: 'text/markdown', text: POLICY }],
    });
  });

  it('serves a binary file as a base64 blob with its mime=, and inline text as text/plain', async () => {
    const logo = await modern('resources/read', { uri: 'docs://helpdesk/logo' });
    const content = (logo.json.result!.contents as { blob: string; mimeType: string }[])[0]!;
    expect(content.mimeType).toBe('image/png');
    expect(Buffer.from(content.blob, 'base64')).toEqual(readFileSync('test/fixtures/pixel.png'));
    expect(logo.json.result).toMatchObject({
      ttlMs: 60_000,
      cacheScope: 'public',
      resultType: 'complete',
    });
    const hours = await legacy('resources/read', { uri: 'docs://helpdesk/hours' });
    expect(hours.json.result!.contents).toEqual([
      { uri: 'docs://helpdesk/hours', mimeType: 'text/plain', text: 'Mon-Fri 9:00-17:00' },
    ]);
  });

  it('refuses a 2026-07-28 read whose Mcp-Name disagrees with params.uri (400, -32020)', async () => {
    const r = await modern(
      'resources/read',
      { uri: 'docs://helpdesk/hours' },
      { headers: { 'mcp-name': 'docs://helpdesk/other' } },
    );
    expect(r.status).toBe(400);
    expect(r.json.error!.code).toBe(-32020);
  });

  it('answers a URI nothing serves as not found with data.uri: -32002 in 2025-11-25, -32602 in 2026-07-28', async () => {
    const before = upstream.requests.length;
    const uri = 'docs://helpdesk/nothing-here';
    const old = await legacy('resources/read', { uri });
    expect(old.json.error).toMatchObject({ code: -32002, data: { uri } });
    const now = await modern('resources/read', { uri });
    expect(now.json.error).toMatchObject({ code: -32602, data: { uri } });
    // Exactly {uri}: how a 2026-07-28 client tells a not-found from a refused read.
    expect(now.json.error!.data).toEqual({ uri });
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses resources/read without params.uri with -32602', async () => {
    const r = await legacy('resources/read', {});
    expect(r.json.error!.code).toBe(-32602);
  });
});

describe('resources/read of a from= template', () => {
  it('converts "42" to the integer 42, calls the grant once and returns the envelope as JSON (private, ttl 0)', async () => {
    const before = upstream.requests.length;
    const r = await modern('resources/read', { uri: 'helpdesk://tickets/42' });
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/api/tickets/42');
    const [content] = r.json.result!.contents as { uri: string; mimeType: string; text: string }[];
    expect(content!.uri).toBe('helpdesk://tickets/42');
    expect(content!.mimeType).toBe('application/json');
    const envelope = JSON.parse(content!.text) as { result: { id: number }; coverage: unknown };
    expect(envelope.result.id).toBe(42);
    expect(envelope.coverage).toBeDefined();
    expect(r.json.result).toMatchObject({
      ttlMs: 0,
      cacheScope: 'private',
      resultType: 'complete',
    });
  });

  it('converts true and false for a boolean variable and refuses any other text', async () => {
    const before = upstream.requests.length;
    await legacy('resources/read', { uri: 'helpdesk://tickets/7/verbose/true' });
    expect(upstream.requests.at(-1)!.query).toBe('verbose=true');
    const bad = await legacy('resources/read', { uri: 'helpdesk://tickets/7/verbose/yes' });
    expect(bad.json.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENTS' } });
    expect(bad.json.error!.message).toContain('verbose');
    expect(upstream.requests.length).toBe(before + 1);
  });

  it.each([
    ['"4x" for an integer', 'helpdesk://tickets/4x', 'INVALID_ARGUMENTS'],
    ['0 below the field minimum', 'helpdesk://tickets/0', 'INVALID_ARGUMENTS'],
    ['a status outside restrict', 'helpdesk://tickets/3/as/pending', 'DENIED_BY_RESTRICT'],
    ['a malformed %-escape', 'helpdesk://tickets/3/as/%E0%A4', 'INVALID_ARGUMENTS'],
  ])('refuses %s with -32602 and the catalogue code, calling nothing', async (_what, uri, code) => {
    const before = upstream.requests.length;
    for (const r of [
      await legacy('resources/read', { uri }),
      await modern('resources/read', { uri }),
    ]) {
      expect(r.status).toBe(200);
      expect(r.json.error).toMatchObject({ code: -32602, data: { code } });
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("counts reads against the grant's rate limit per caller: over it, -32602 RATE_LIMITED with retryAfter", async () => {
    const before = upstream.requests.length;
    const first = await legacy('resources/read', { uri: 'helpdesk://history/1' });
    expect(first.json.result!.contents).toHaveLength(1);
    const second = await modern('resources/read', { uri: 'helpdesk://history/2' });
    expect(second.json.error).toMatchObject({ code: -32602, data: { code: 'RATE_LIMITED' } });
    expect(second.json.error!.data!.retryAfter).toBeGreaterThan(0);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('answers an upstream failure with -32603 and UPSTREAM_STATUS after one upstream call', async () => {
    const before = upstream.requests.length;
    const r = await legacy('resources/read', { uri: 'helpdesk://tickets/500' });
    expect(r.json.error).toMatchObject({ code: -32603, data: { code: 'UPSTREAM_STATUS' } });
    expect(upstream.requests.length).toBe(before + 1);
  });
});

describe('prompts', () => {
  it('lists prompts with their arguments (legacy) and with cache hints (2026-07-28)', async () => {
    const r = await legacy('prompts/list');
    expect(r.json.result).toEqual({
      prompts: [
        {
          name: 'triage',
          title: 'Triage a ticket',
          description: 'Read one ticket and propose a priority.',
          arguments: [
            { name: 'id', description: 'Ticket id.', required: true },
            { name: 'tone', required: false },
            { name: 'note', required: false },
          ],
        },
        { name: 'greet', arguments: [{ name: 'who', required: false }] },
      ],
    });
    const m = await modern('prompts/list');
    expect(m.json.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('fills placeholders and the default, and embeds the template resource read through the grant', async () => {
    const before = upstream.requests.length;
    const r = await modern('prompts/get', { name: 'triage', arguments: { id: '9' } });
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/api/tickets/9');
    const result = r.json.result as {
      description: string;
      messages: { role: string; content: Record<string, unknown> }[];
      ttlMs: number;
      cacheScope: string;
    };
    expect(result.description).toBe('Read one ticket and propose a priority.');
    expect(result.messages[0]).toEqual({
      role: 'user',
      content: { type: 'text', text: 'Triage ticket 9 in a friendly tone.' },
    });
    expect(result.messages[1]!.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'helpdesk://tickets/9', mimeType: 'application/json' },
    });
    expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('embeds a fixed resource and caches a prompt that depends on nothing but its arguments', async () => {
    const r = await modern('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
    expect(r.json.result).toMatchObject({
      messages: [
        { role: 'assistant', content: { type: 'text', text: 'Hello Ada, see the hours.' } },
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: 'docs://helpdesk/hours', text: 'Mon-Fri 9:00-17:00' },
          },
        },
      ],
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });

  it.each([
    ['a missing required argument', { tone: 'formal' }, 'id'],
    ['an undeclared argument', { id: '1', colour: 'red' }, 'colour'],
    ['a value outside the enum', { id: '1', tone: 'rude' }, 'tone'],
    ['a value against the pattern', { id: '1', note: 'NO' }, 'note'],
    ['a value over max-length', { id: '1', note: 'abcdefghijk' }, 'note'],
    ['a value that is not a string', { id: 1 }, 'id'],
  ])('refuses %s with -32602 naming the argument, reading nothing', async (_what, args, named) => {
    const before = upstream.requests.length;
    for (const r of [
      await legacy('prompts/get', { name: 'triage', arguments: args }),
      await modern('prompts/get', { name: 'triage', arguments: args }),
    ]) {
      expect(r.json.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENTS' } });
      expect(r.json.error!.message).toContain(named);
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses a 2026-07-28 get whose Mcp-Name disagrees with params.name (400, -32020)', async () => {
    const r = await modern(
      'prompts/get',
      { name: 'greet', arguments: {} },
      { headers: { 'mcp-name': 'triage' } },
    );
    expect(r.status).toBe(400);
    expect(r.json.error!.code).toBe(-32020);
  });

  it('refuses an unknown prompt name with -32602 in both eras', async () => {
    for (const r of [
      await legacy('prompts/get', { name: 'nope' }),
      await modern('prompts/get', { name: 'nope' }),
    ])
      expect(r.json.error).toMatchObject({ code: -32602, data: { code: 'UNKNOWN_PROMPT' } });
  });

  it('passes a refused embedded read on as the prompt error (an id the template cannot take)', async () => {
    const before = upstream.requests.length;
    const r = await legacy('prompts/get', { name: 'triage', arguments: { id: 'x' } });
    expect(r.json.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENTS' } });
    expect(upstream.requests.length).toBe(before);
  });
});

describe('completion/complete', () => {
  it('completes a prompt argument from its enum by prefix, with total and hasMore', async () => {
    const r = await legacy('completion/complete', {
      ref: { type: 'ref/prompt', name: 'triage' },
      argument: { name: 'tone', value: 'f' },
    });
    expect(r.json.result).toEqual({
      completion: { values: ['friendly', 'formal'], total: 2, hasMore: false },
    });
    const narrow = await modern('completion/complete', {
      ref: { type: 'ref/prompt', name: 'triage' },
      argument: { name: 'tone', value: 'fo' },
    });
    expect(narrow.json.result).toMatchObject({
      completion: { values: ['formal'], total: 1, hasMore: false },
      ttlMs: 60_000,
      cacheScope: 'public',
      resultType: 'complete',
    });
  });

  it("completes a template variable from the grant field's enum narrowed by restrict", async () => {
    const r = await legacy('completion/complete', {
      ref: { type: 'ref/resource', uri: 'helpdesk://tickets/{id}/as/{status}' },
      argument: { name: 'status', value: '' },
    });
    expect(r.json.result).toEqual({
      completion: { values: ['open', 'closed'], total: 2, hasMore: false },
    });
  });

  it('offers nothing for an argument without values, and refuses one that is not declared', async () => {
    const free = await legacy('completion/complete', {
      ref: { type: 'ref/prompt', name: 'triage' },
      argument: { name: 'id', value: '1' },
    });
    expect(free.json.result).toEqual({ completion: { values: [], total: 0, hasMore: false } });
    const unknown = await legacy('completion/complete', {
      ref: { type: 'ref/prompt', name: 'triage' },
      argument: { name: 'colour', value: '' },
    });
    expect(unknown.json.error).toMatchObject({ code: -32602 });
  });
});

describe('scopes on resources and prompts (access)', () => {
  it('hides a from= resource and the prompt embedding it from a caller without the grant scope', async () => {
    const templates = await legacy('resources/templates/list', {}, bearer(GUEST_KEY));
    expect(
      (templates.json.result!.resourceTemplates as { uriTemplate: string }[]).map(
        (t) => t.uriTemplate,
      ),
    ).toEqual(['helpdesk://history/{id}']);
    const prompts = await legacy('prompts/list', {}, bearer(GUEST_KEY));
    expect((prompts.json.result!.prompts as { name: string }[]).map((p) => p.name)).toEqual([
      'greet',
    ]);
    const reader = await modern('resources/templates/list', {}, bearer(READER_KEY));
    expect((reader.json.result!.resourceTemplates as unknown[]).length).toBe(4);
    expect(reader.json.result!.cacheScope).toBe('private');
  });

  it('answers a read and a get without the scope as tools/call does: HTTP 403 with the challenge, nothing called', async () => {
    const before = upstream.requests.length;
    const read = await modern('resources/read', { uri: 'helpdesk://tickets/1' }, bearer(GUEST_KEY));
    expect(read.status).toBe(403);
    expect(read.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope".*scope="tickets:read"/,
    );
    const get = await legacy(
      'prompts/get',
      { name: 'triage', arguments: { id: '1' } },
      bearer(GUEST_KEY),
    );
    expect(get.status).toBe(403);
    expect(get.headers.get('www-authenticate')).toMatch(/scope="tickets:read"/);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses to complete a template variable for a caller without its scope (403)', async () => {
    const r = await legacy(
      'completion/complete',
      {
        ref: { type: 'ref/resource', uri: 'helpdesk://tickets/{id}/as/{status}' },
        argument: { name: 'status', value: '' },
      },
      bearer(GUEST_KEY),
    );
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/scope="tickets:read"/);
  });

  it('reads the template for a caller holding the scope', async () => {
    const before = upstream.requests.length;
    const r = await legacy('resources/read', { uri: 'helpdesk://tickets/5' }, bearer(READER_KEY));
    expect(r.status).toBe(200);
    expect(r.json.result!.contents).toHaveLength(1);
    expect(upstream.requests.length).toBe(before + 1);
  });
});
