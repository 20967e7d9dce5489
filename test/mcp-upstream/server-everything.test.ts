/**
 * The connection layer against the reference server `@modelcontextprotocol/server-everything`
 * (a real third-party server, SDK 1.x, 2025-11-25 only), started by the tests over stdio
 * and over Streamable HTTP (its `streamableHttp` mode, SSE answers and a session id).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import {
  EVERYTHING,
  freePort,
  NODE,
  open,
  startEverythingHttp,
  stopProcess,
  until,
} from './upstream-helpers.js';

/** What both transports must do alike. */
function sharedBehaviour(get: () => McpUpstream): void {
  it('shakes hands in the 2025-11-25 era after server/discover is refused', async () => {
    const hs = await get().connect();
    expect(hs).toMatchObject({
      ok: true,
      value: { era: 'legacy', protocolVersion: '2025-11-25' },
    });
    expect(get().state()).toBe('up');
  });

  it('lists its tools', async () => {
    const out = await get().listTools();
    expect(out.ok).toBe(true);
    const names = out.ok ? out.value.map((t) => t.name) : [];
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-structured-content']));
  });

  it('echo returns the text the upstream received, as one string', async () => {
    expect(await get().callTool('echo', { message: 'hello from the gateway' })).toEqual({
      ok: true,
      value: 'Echo: hello from the gateway',
    });
  });

  it('a result with structuredContent is that structured content', async () => {
    expect(await get().callTool('get-structured-content', { location: 'Chicago' })).toEqual({
      ok: true,
      value: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
  });

  it('a result of text and image blocks is {content} of its blocks', async () => {
    const out = await get().callTool('get-tiny-image', {});
    expect(out.ok).toBe(true);
    const blocks = (out as { value: { content: { type: string }[] } }).value.content;
    expect(blocks.map((b) => b.type)).toEqual(['text', 'image', 'text']);
  });

  it('arguments it refuses and a tool it lacks are tool errors with its text', async () => {
    expect(await get().callTool('get-sum', { a: 'two', b: 3 })).toMatchObject({
      ok: false,
      error: { kind: 'tool-error', message: expect.stringContaining('Input validation error') },
    });
    expect(await get().callTool('no-such-tool', {})).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: 'MCP error -32602: Tool no-such-tool not found' },
    });
  });

  it('a call past its deadline is a timeout, and the next call is answered', async () => {
    const out = await get().callTool(
      'trigger-long-running-operation',
      { duration: 3, steps: 1 },
      { timeoutMs: 400 },
    );
    expect(out).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(await get().callTool('get-sum', { a: 2, b: 3 })).toEqual({
      ok: true,
      value: 'The sum of 2 and 3 is 5.',
    });
  });
}

describe('server-everything over stdio', () => {
  let upstream: McpUpstream;
  let logs: string[];
  beforeAll(() => {
    ({ upstream, logs } = open({
      name: 'everything',
      transport: {
        kind: 'command',
        program: NODE,
        args: [EVERYTHING, 'stdio'],
        cwd: '/',
        env: { EVERYTHING_MODE: 'test' },
        parentEnv: { ...process.env, GATEWAY_SECRET: 'must-not-leak' },
      },
    }));
  });
  afterAll(() => upstream.close());

  sharedBehaviour(() => upstream);

  it('runs with only PATH, HOME, LANG and the given variables', async () => {
    const out = await upstream.callTool('get-env', {});
    expect(out.ok).toBe(true);
    const env = (out as { value: Record<string, string> }).value;
    expect(env.EVERYTHING_MODE).toBe('test');
    expect(env.GATEWAY_SECRET).toBeUndefined();
    expect(
      Object.keys(env).filter((k) => !['PATH', 'HOME', 'LANG', 'EVERYTHING_MODE'].includes(k)),
    ).toEqual([]);
  });

  it('has its stderr in the log', () => {
    expect(logs).toContain(
      'info: mcp-server everything stderr: Starting default (STDIO) server...',
    );
  });

  it('killed from outside, is unavailable at once and restarted after 1 s', async () => {
    const before = await upstream.callTool('get-env', {});
    expect(before.ok).toBe(true);
    const pid = upstream.pid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => upstream.state() === 'down');
    expect(await upstream.callTool('echo', { message: 'x' })).toMatchObject({
      ok: false,
      error: { kind: 'unavailable' },
    });
    const t0 = performance.now();
    await until(() => upstream.state() === 'starting', 5_000);
    expect(performance.now() - t0).toBeGreaterThan(700);
    expect(await upstream.callTool('echo', { message: 'again' })).toEqual({
      ok: true,
      value: 'Echo: again',
    });
    expect(upstream.pid()).not.toBe(pid);
  });
});

describe('server-everything over Streamable HTTP', () => {
  let server: ChildProcess | undefined;
  let port: number;
  let upstream: McpUpstream;
  beforeAll(async () => {
    port = await freePort();
    server = await startEverythingHttp(port);
    ({ upstream } = open({
      name: 'everything-http',
      transport: {
        kind: 'url',
        url: new URL(`http://127.0.0.1:${port}/mcp`),
        headers: { authorization: 'Bearer upstream-token', 'X-Team': 'triage' },
      },
    }));
  });
  afterAll(async () => {
    await upstream?.close();
    await stopProcess(server);
  });

  sharedBehaviour(() => upstream);

  it('when the server forgets the session, a read is sent again on a new one and a write is not', async () => {
    expect(await upstream.callTool('get-sum', { a: 1, b: 1 })).toMatchObject({ ok: true });
    const before = upstream.handshake();
    // A restarted server knows no session: it answers 400 "No valid session ID provided".
    await stopProcess(server);
    server = await startEverythingHttp(port);
    const write = await upstream.callTool('echo', { message: 'once' });
    expect(write).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!write.ok && write.error.message).toMatch(
      /no longer knows the session \(status 400\).*this call \(a write\) is not sent twice/,
    );
    await stopProcess(server);
    server = await startEverythingHttp(port);
    expect(
      await upstream.callTool('echo', { message: 'read' }, { retryOnNewSession: true }),
    ).toEqual({ ok: true, value: 'Echo: read' });
    expect(upstream.handshake()).not.toBe(before);
  });

  it('a server that is gone is unavailable, and back it is served again', async () => {
    await stopProcess(server);
    const out = await upstream.callTool('get-sum', { a: 1, b: 2 });
    expect(out).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!out.ok && out.error.message).toContain('connection refused');
    server = await startEverythingHttp(port);
    expect(await upstream.callTool('get-sum', { a: 1, b: 2 }, { retryOnNewSession: true })).toEqual(
      { ok: true, value: 'The sum of 1 and 2 is 3.' },
    );
  });

  it('an answer larger than the cap is a protocol error', async () => {
    const { upstream: small } = open({
      name: 'small',
      maxMessageBytes: 3000,
      transport: { kind: 'url', url: new URL(`http://127.0.0.1:${port}/mcp`), headers: {} },
    });
    try {
      const out = await small.callTool('get-tiny-image', {});
      expect(out).toEqual({
        ok: false,
        error: {
          kind: 'protocol',
          message: 'mcp-server small answered tools/call with more than the cap of 3000 bytes',
        },
      });
    } finally {
      await small.close();
    }
  });
});
