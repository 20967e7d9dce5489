/**
 * A hand-written Streamable HTTP upstream that answers as no SDK would let it: a
 * redirect, HTML, statuses, an event stream with notifications before the answer or
 * none at all, `input_required`, and a 2025-era session it forgets. Each is one clear
 * error value (or, for a forgotten session, a new session), never an exception.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamNotification } from '../../src/mcp-upstream/rpc-channel.js';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { open } from './upstream-helpers.js';

interface Message {
  id?: number;
  method: string;
  params?: { name?: string; _meta?: unknown };
}

const seen: { headers: IncomingHttpHeaders; body: Message }[] = [];
const deleted: (string | undefined)[] = [];
let sessions = 0;
let forget = false;
let server: Server;
let base: string;
const upstreams: McpUpstream[] = [];

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function answer(res: ServerResponse, m: Message): void {
  const ok = (result: unknown) => json(res, 200, { jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'server/discover')
    return ok({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: 'public',
    });
  if (m.method !== 'tools/call') return ok({ tools: [] });
  switch (m.params?.name) {
    case 'redirect':
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' });
      return void res.end();
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html>login</html>');
    case 'status-503':
      return json(res, 503, { message: 'down for maintenance' });
    case 'status-401':
      res.writeHead(401, { 'www-authenticate': 'Bearer' });
      return void res.end('unauthorized');
    case 'input':
      return ok({
        resultType: 'input_required',
        inputRequests: { q: { method: 'elicitation/create', params: {} } },
      });
    case 'stream': {
      // Notifications first, then the answer, and the stream is left open: the answer is taken at once.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`: keep-alive\n\n`);
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'streamed' }] } })}\n\n`,
      );
      return; // never ended; closed with the server
    }
    case 'stream-unanswered':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })}\n\n`,
      );
    case 'wrong-id':
      return json(res, 200, { jsonrpc: '2.0', id: 9999, result: {} });
    default:
      return ok({ content: [{ type: 'text', text: 'fine' }] });
  }
}

/** The 2025-era path: a session per initialize, forgotten (404) once when `forget` is set. */
function legacy(res: ServerResponse, m: Message, headers: IncomingHttpHeaders): void {
  if (m.method === 'initialize') {
    sessions += 1;
    return json(
      res,
      200,
      {
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          serverInfo: { name: 'old', version: '1' },
        },
      },
      { 'mcp-session-id': `session-${sessions}` },
    );
  }
  if (m.id === undefined) {
    res.writeHead(202);
    return void res.end();
  }
  if (headers['mcp-session-id'] !== `session-${sessions}` || forget) {
    forget = false;
    return json(res, 404, {
      jsonrpc: '2.0',
      id: m.id,
      error: { code: -32001, message: 'Session not found' },
    });
  }
  json(res, 200, {
    jsonrpc: '2.0',
    id: m.id,
    result: { content: [{ type: 'text', text: `on ${headers['mcp-session-id']}` }] },
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'DELETE') {
      // The end of a 2025-era session, on close.
      deleted.push(req.headers['mcp-session-id'] as string | undefined);
      res.writeHead(200);
      return void res.end();
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
    seen.push({ headers: req.headers, body });
    if (req.url === '/legacy') legacy(res, body, req.headers);
    else answer(res, body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterEach(() => {
  seen.length = 0;
});
afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.close()));
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function at(path: string, notes?: UpstreamNotification[]): McpUpstream {
  const { upstream } = open({
    name: 'odd',
    transport: { kind: 'url', url: new URL(`${base}${path}`), headers: {} },
    timeoutMs: 3_000,
    ...(notes && { onNotification: (n: UpstreamNotification) => notes.push(n) }),
  });
  upstreams.push(upstream);
  return upstream;
}

describe('a Streamable HTTP upstream that misbehaves', () => {
  it('a redirect is not followed: a protocol error naming it', async () => {
    expect(await at('/mcp').callTool('redirect', {})).toEqual({
      ok: false,
      error: {
        kind: 'protocol',
        message: 'mcp-server odd answered with a 307 redirect, which the gateway does not follow',
      },
    });
    expect(seen.every((s) => s.body.method !== undefined)).toBe(true);
    expect(seen).toHaveLength(2); // discover and the call; nothing sent to the Location
  });

  it('HTML is not MCP', async () => {
    expect(await at('/mcp').callTool('html', {})).toEqual({
      ok: false,
      error: {
        kind: 'protocol',
        message: 'mcp-server odd answered tools/call with text/html, not MCP',
      },
    });
  });

  it('a 503 is unavailable and a 401 a protocol error, each quoting the status', async () => {
    const u = at('/mcp');
    expect(await u.callTool('status-503', {})).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', message: expect.stringContaining('status 503') },
    });
    expect(await u.callTool('status-401', {})).toEqual({
      ok: false,
      error: {
        kind: 'protocol',
        message: 'mcp-server odd answered with status 401: "unauthorized"',
      },
    });
  });

  it('input_required is refused as a protocol error', async () => {
    expect(await at('/mcp').callTool('input', {})).toEqual({
      ok: false,
      error: {
        kind: 'protocol',
        message:
          'mcp-server odd asked for more input (resultType "input_required"), which the gateway does not relay',
      },
    });
  });

  it('an event stream is read up to the answer, its notifications handed on, though it stays open', async () => {
    const notes: UpstreamNotification[] = [];
    expect(await at('/mcp', notes).callTool('stream', {})).toEqual({ ok: true, value: 'streamed' });
    expect(notes).toEqual([{ method: 'notifications/tools/list_changed' }]);
  });

  it('an event stream that ends without the answer, or an answer to another id, is a protocol error', async () => {
    const u = at('/mcp');
    expect(await u.callTool('stream-unanswered', {})).toMatchObject({
      ok: false,
      error: { kind: 'protocol', message: expect.stringContaining('ended without an answer') },
    });
    expect(await u.callTool('wrong-id', {})).toMatchObject({
      ok: false,
      error: {
        kind: 'protocol',
        message: expect.stringContaining('not a JSON-RPC response to it'),
      },
    });
  });

  it('a 2025-era server that forgets the session (404) gets a new initialize; a read is sent again once', async () => {
    const u = at('/legacy');
    expect(await u.callTool('a', {}, { retryOnNewSession: true })).toEqual({
      ok: true,
      value: 'on session-1',
    });
    expect(seen.map((s) => s.body.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(seen[3]!.headers).toMatchObject({
      'mcp-session-id': 'session-1',
      'mcp-protocol-version': '2025-06-18',
    });
    forget = true;
    expect(await u.callTool('b', {}, { retryOnNewSession: true })).toEqual({
      ok: true,
      value: 'on session-2',
    });
    // Once the era is known it is kept: no second discover.
    expect(seen.slice(4).map((s) => s.body.method)).toEqual([
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
    expect(
      seen
        .filter((s) => s.body.method === 'initialize')
        .every((s) => s.headers['mcp-session-id'] === undefined),
    ).toBe(true);
  });

  it('a write on a forgotten session is not sent twice', async () => {
    const u = at('/legacy');
    await u.connect();
    forget = true;
    const out = await u.callTool('write', {});
    expect(out).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!out.ok && out.error.message).toContain('(status 404)');
    expect(seen.filter((s) => s.body.params?.name === 'write')).toHaveLength(1);
    expect(await u.callTool('write', {})).toMatchObject({ ok: true });
  });

  it('closing ends the 2025-era session with a DELETE naming it', async () => {
    const { upstream } = open({
      name: 'closing',
      transport: { kind: 'url', url: new URL(`${base}/legacy`), headers: {} },
    });
    await upstream.connect();
    deleted.length = 0;
    await upstream.close();
    expect(deleted).toEqual([`session-${sessions}`]);
  });

  it('never sends the protocol headers a caller gives', async () => {
    const { upstream } = open({
      name: 'headers',
      transport: {
        kind: 'url',
        url: new URL(`${base}/mcp`),
        headers: {
          'Mcp-Session-Id': 'forged',
          'MCP-Protocol-Version': '1999-01-01',
          'X-Ok': 'yes',
        },
      },
    });
    upstreams.push(upstream);
    expect(await upstream.callTool('plain', {})).toEqual({ ok: true, value: 'fine' });
    const call = seen.at(-1)!;
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(call.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(call.headers['x-ok']).toBe('yes');
  });

  it('each 2026-07-28 call names its own tool in Mcp-Name, though their headers are made once per tool', async () => {
    const u = at('/mcp');
    await u.connect();
    const before = seen.length;
    const names = ['first', 'second', 'first', 'plain', 'second'];
    await Promise.all(names.map((n) => u.callTool(n, {})));
    const calls = seen.slice(before).filter((s) => s.body.method === 'tools/call');
    expect(calls.map((s) => [s.body.params?.name, s.headers['mcp-name']])).toEqual(
      expect.arrayContaining(names.map((n) => [n, n])),
    );
    expect(calls).toHaveLength(names.length);
    expect(calls.every((s) => s.headers['mcp-method'] === 'tools/call')).toBe(true);
  });

  it('nothing listening is unavailable, connection refused', async () => {
    const { upstream } = open({
      name: 'nowhere',
      transport: { kind: 'url', url: new URL('http://127.0.0.1:9/mcp'), headers: {} },
    });
    upstreams.push(upstream);
    const out = await upstream.callTool('x', {});
    expect(out).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!out.ok && out.error.message).toContain('connection refused');
    expect(upstream.state()).toBe('down');
  });
});
