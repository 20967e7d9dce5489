/**
 * The stdio supervisor against a child that misbehaves on purpose
 * (test/fixtures/mcp-upstream/hostile-server.mjs): each misdeed costs one call a clear
 * error value, and the next call is served (by a restarted child where it had to die).
 */
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { openMcpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { Cancellation } from '../../src/outbound/cancellation.js';
import { HOSTILE, NODE, open, until } from './upstream-helpers.js';
import { isAlive } from '../../bench/lib/proc.mjs';

const FAST_RESTART = { firstMs: 200, maxMs: 1_600 };
let opened: McpUpstream[] = [];

function hostile(
  extra: {
    args?: string[];
    maxMessageBytes?: number;
    env?: Record<string, string>;
    killAfterMs?: number;
  } = {},
) {
  const o = open({
    name: 'hostile',
    transport: {
      kind: 'command',
      program: NODE,
      args: [HOSTILE, ...(extra.args ?? [])],
      cwd: dirname(HOSTILE),
      env: extra.env ?? {},
      restart: FAST_RESTART,
      ...(extra.killAfterMs !== undefined && { killAfterMs: extra.killAfterMs }),
    },
    timeoutMs: 5_000,
    ...(extra.maxMessageBytes !== undefined && { maxMessageBytes: extra.maxMessageBytes }),
    redact: (t) => t.replaceAll('s3cret-value', '[REDACTED]'),
  });
  opened.push(o.upstream);
  return o;
}

async function echoWorks(u: McpUpstream, n = 1): Promise<number> {
  const out = await u.callTool('echo', { n });
  expect(out).toMatchObject({ ok: true, value: { received: { n } } });
  return (out as { value: { pid: number } }).value.pid;
}

afterEach(async () => {
  await Promise.all(opened.map((u) => u.close()));
  opened = [];
});

describe('a hostile stdio child', () => {
  it('that never answers costs its call a timeout, and the next call is answered', async () => {
    const { upstream } = hostile();
    // Shaken hands first: the deadline of a call covers the handshake too.
    expect(await upstream.connect()).toMatchObject({ ok: true, value: { era: 'legacy' } });
    const out = await upstream.callTool('hang', {}, { timeoutMs: 300 });
    expect(out).toEqual({
      ok: false,
      error: { kind: 'timeout', message: 'no answer to tools/call within 300 ms' },
    });
    await echoWorks(upstream);
  });

  it('that writes non-JSON instead of an answer costs that call a protocol error quoting it', async () => {
    const { upstream, logs } = hostile();
    await echoWorks(upstream);
    const out = await upstream.callTool('garbage', {});
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error.kind).toBe('protocol');
    expect(!out.ok && out.error.message).toContain('"this is not JSON at all"');
    expect(logs.some((l) => l.startsWith('warn:') && l.includes('not MCP'))).toBe(true);
    await echoWorks(upstream, 2);
  });

  it('that prints a banner to stdout before its first message is only logged', async () => {
    const { upstream, logs } = hostile({ args: ['--banner'] });
    await echoWorks(upstream);
    expect(logs.some((l) => l.includes('hostile server starting'))).toBe(true);
  });

  it('that answers with a line over the cap costs that call a protocol error, and the child stays', async () => {
    const { upstream } = hostile({ maxMessageBytes: 64 * 1024 });
    const pid = await echoWorks(upstream);
    const out = await upstream.callTool('flood', { bytes: 500_000 });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error).toMatchObject({ kind: 'protocol' });
    expect(!out.ok && out.error.message).toMatch(
      /answered with 5\d{5} bytes, more than the cap of 65536/,
    );
    // The same child goes on: a large answer is not a reason to restart it.
    expect(await echoWorks(upstream, 2)).toBe(pid);
  });

  it('that floods stdout without a newline is killed, its call unavailable, and a new child serves the next', async () => {
    const { upstream, logs } = hostile({ maxMessageBytes: 64 * 1024 });
    const pid = await echoWorks(upstream);
    const out = await upstream.callTool('flood-forever', {});
    expect(out).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!out.ok && out.error.message).toContain('without a newline (a flood)');
    expect(logs.some((l) => l.includes('the child was killed'))).toBe(true);
    await until(() => upstream.state() !== 'down');
    expect(await echoWorks(upstream, 2)).not.toBe(pid);
  });

  it('that dies in the middle of a call costs that call unavailable; calls meanwhile fail fast; it is restarted', async () => {
    const { upstream, logs } = hostile();
    const pid = await echoWorks(upstream);
    const died = await upstream.callTool('die', {});
    expect(died).toEqual({
      ok: false,
      error: {
        kind: 'unavailable',
        message: 'mcp-server hostile: the child exited with code 7 while this call waited',
      },
    });
    expect(upstream.state()).toBe('down');
    // Refused at once, saying the child is not running (not a deadline waited out).
    const meanwhile = await upstream.callTool('echo', { n: 1 });
    expect(meanwhile).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(!meanwhile.ok && meanwhile.error.message).toMatch(
      /is not running .* it restarts in \d+ ms/,
    );
    await until(() => upstream.state() !== 'down');
    expect(await echoWorks(upstream, 3)).not.toBe(pid);
    expect(logs.some((l) => l.includes('exited with code 7; restarting in 200 ms'))).toBe(true);
  });

  it('that keeps exiting at start is restarted with a delay that doubles up to the maximum', async () => {
    const { upstream, logs } = hostile({ args: ['--exit-at-start'] });
    await until(() => logs.filter((l) => l.includes('restarting in')).length >= 5, 8_000);
    const delays = logs
      .filter((l) => l.includes('restarting in'))
      .slice(0, 5)
      .map((l) => Number(/restarting in (\d+) ms/.exec(l)![1]));
    expect(delays).toEqual([200, 400, 800, 1600, 1600]);
    expect(await upstream.callTool('echo', {})).toMatchObject({
      ok: false,
      error: { kind: 'unavailable' },
    });
  });

  it('that ignores SIGTERM is killed with SIGKILL after the grace period on stop', async () => {
    const { upstream } = hostile({ args: ['--ignore-sigterm'], killAfterMs: 300 });
    await echoWorks(upstream);
    const pid = upstream.pid();
    expect(pid).toBeDefined();
    const started = performance.now();
    await upstream.close();
    // The child ignored SIGTERM, so stop waited the grace period (a lower bound, which a
    // busy machine only makes longer), then killed it: the process is gone.
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(isAlive(pid!)).toBe(false);
    expect(await upstream.callTool('echo', {})).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', message: 'mcp-server hostile is stopped' },
    });
  });

  it("shakes hands for every waiting call on its own clock: the first caller's short deadline fails that call alone", async () => {
    const { upstream } = hostile({ args: ['--slow-initialize'] });
    // The first call starts the handshake with a deadline shorter than the child's
    // 600 ms start; the calls that arrive with it have the default deadline.
    const [first, ...rest] = await Promise.all([
      upstream.callTool('echo', { n: -1 }, { timeoutMs: 100 }),
      ...Array.from({ length: 5 }, (_, n) => upstream.callTool('echo', { n })),
    ]);
    expect(first).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    rest.forEach((out, n) =>
      expect(out, JSON.stringify(out)).toMatchObject({ ok: true, value: { received: { n } } }),
    );
  });

  it('goes on shaking hands for the other calls when the caller who started it goes away', async () => {
    const { upstream } = hostile({ args: ['--slow-initialize'] });
    const gone = new Cancellation();
    const firstCall = upstream.callTool('echo', { n: -1 }, { cancel: gone });
    const others = Array.from({ length: 3 }, (_, n) => upstream.callTool('echo', { n }));
    gone.cancel();
    expect(await firstCall).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    (await Promise.all(others)).forEach((out, n) =>
      expect(out, JSON.stringify(out)).toMatchObject({ ok: true, value: { received: { n } } }),
    );
  });

  it('serves many calls at once, each answered by its own id, while one of them hangs', async () => {
    const { upstream } = hostile();
    const [hung, ...rest] = await Promise.all([
      upstream.callTool('hang', {}, { timeoutMs: 400 }),
      ...Array.from({ length: 20 }, (_, n) => upstream.callTool('echo', { n })),
    ]);
    expect(hung).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    rest.forEach((out, n) =>
      expect(out, JSON.stringify(out)).toMatchObject({ ok: true, value: { received: { n } } }),
    );
  });

  it('has its stderr logged line by line, redacted and capped', async () => {
    const { upstream, logs } = hostile();
    await upstream.callTool('stderr', { line: 'token is s3cret-value here' });
    await upstream.callTool('stderr', { line: 'z'.repeat(10_000) });
    await until(() => logs.some((l) => l.includes('bytes, cut')));
    expect(logs).toContain('info: mcp-server hostile stderr: token is [REDACTED] here');
    const long = logs.find((l) => l.includes('bytes, cut'))!;
    expect(long.length).toBeLessThan(2_200);
    expect(long).toContain('(10000 bytes, cut)');
  });

  it('gets only PATH, HOME, LANG and the given variables, in the given folder', async () => {
    const { upstream } = hostile({ env: { LOG_LEVEL: 'warn' } });
    const out = await upstream.callTool('env', {});
    expect(out.ok).toBe(true);
    const { env, cwd } = (out as { value: { env: Record<string, string>; cwd: string } }).value;
    const allowed = new Set(['PATH', 'HOME', 'LANG', 'LOG_LEVEL']);
    // Node itself may add nothing; whatever is there must be one of ours.
    expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
    expect(env.LOG_LEVEL).toBe('warn');
    expect(env.PATH).toBe(process.env.PATH);
    expect(cwd).toBe(dirname(HOSTILE));
  });

  it('an isError result is a tool error with its text, and a JSON-RPC error is one too', async () => {
    const { upstream } = hostile();
    expect(await upstream.callTool('fail', { message: 'no such issue' })).toEqual({
      ok: false,
      error: { kind: 'tool-error', message: 'no such issue' },
    });
    const long = await upstream.callTool('fail', { message: 'é'.repeat(5_000) });
    expect(!long.ok && Buffer.byteLength(long.error.message)).toBeLessThanOrEqual(2048);
    expect(await upstream.callTool('missing', {})).toEqual({
      ok: false,
      error: { kind: 'rpc-error', code: -32602, message: 'Unknown tool: missing' },
    });
  });

  it('lists every page of tools, following nextCursor', async () => {
    const { upstream } = hostile();
    const out = await upstream.listTools();
    expect(out.ok && out.value.map((t) => t.name)).toEqual([
      'echo',
      'env',
      'hang',
      'garbage',
      'flood',
      'flood-forever',
      'die',
      'fail',
      'stderr',
      'slow',
    ]);
  });

  it('a program that is not on PATH is a start-up error naming it', () => {
    const opened = openMcpUpstream({
      name: 'ghost',
      transport: { kind: 'command', program: 'no-such-mcp-server', args: [], cwd: '/', env: {} },
      maxMessageBytes: 1 << 20,
      log: () => {},
      redact: (t) => t,
    });
    expect(opened.ok).toBe(false);
    expect(!opened.ok && opened.message).toMatch(
      /^mcp-server "ghost": the program "no-such-mcp-server" is not found on PATH \(/,
    );
  });

  it('a bare program name is found on the PATH it is given', async () => {
    const o = open({
      name: 'by-name',
      transport: {
        kind: 'command',
        program: 'node',
        args: [HOSTILE],
        cwd: '/',
        env: {},
        parentEnv: { PATH: `/nonexistent:${dirname(NODE)}` },
      },
    });
    opened.push(o.upstream);
    await echoWorks(o.upstream);
  });

  it('the caller going away ends the call at once as unavailable', async () => {
    const { Cancellation } = await import('../../src/outbound/cancellation.js');
    const { upstream } = hostile();
    await echoWorks(upstream);
    const cancel = new Cancellation();
    const pending = upstream.callTool('hang', {}, { cancel });
    setTimeout(() => cancel.cancel(), 50);
    expect(await pending).toEqual({
      ok: false,
      error: { kind: 'unavailable', message: 'the call was cancelled by the caller' },
    });
  });
});
