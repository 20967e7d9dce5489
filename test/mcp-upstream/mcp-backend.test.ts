/**
 * The `mcp` backend kind against real servers over stdio (server-everything, and the
 * hostile fixture for environment, failures and secrets). The compiler part arrives on
 * its own branch, so grants and servers are built here as descriptors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  BodyFieldDescriptor,
  CompiledSpec,
  McpBackend,
  McpServerDescriptor,
} from '../../src/compiler/descriptor.js';
import { createMcpKind } from '../../src/engine/backends/mcp/mcp-backend.js';
import { checkLive } from '../../src/cli/check-live.js';
import { Gateway } from '../../src/engine/gateway.js';
import { ANONYMOUS } from '../../src/engine/caller.js';
import { messageText } from '../../src/mcp-upstream/json-rpc-message.js';
import type { BackendKind, GrantOf } from '../../src/engine/backends/kind.js';
import { NumberTexts, parseJson } from '../../src/json/number-text.js';
import { makeRedactor } from '../../src/engine/redact.js';
import { StartupError } from '../../src/process/startup-error.js';
import { EVERYTHING, HOSTILE, NODE, until } from './upstream-helpers.js';
import { scopeFor } from '../helpers/scope.js';

function server(
  name: string,
  script: string,
  env: McpServerDescriptor['transport'] = stdio(script),
): McpServerDescriptor {
  return {
    name,
    transport: env,
    timeoutMs: 10_000,
    protocol: '2025-11-25',
    source: { file: 'kind.mcp.kdl', line: 1, column: 1 },
  };
}

function stdio(
  script: string,
  env: Extract<McpServerDescriptor['transport'], { kind: 'command' }>['env'] = [],
): McpServerDescriptor['transport'] {
  return { kind: 'command', program: NODE, args: [script], cwd: process.cwd(), env };
}

let line = 10;
function grant(
  name: string,
  backend: Partial<McpBackend> & Pick<McpBackend, 'server' | 'tool'>,
  fields: BodyFieldDescriptor[] = [],
): GrantOf<'mcp'> {
  return {
    name,
    verb: 'get',
    resource: name,
    title: name,
    annotations: {
      title: name,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    inputSchema: { type: 'object' },
    outputSchema: {},
    arguments: fields.map((f) => ({
      name: f.name,
      in: 'body' as const,
      type: f.type,
      required: false,
      upstream: f.upstream,
    })),
    exclusive: [],
    restrict: [],
    scopes: [],
    limits: { maxBytes: 64 * 1024, budgetBytes: 64 * 1024 },
    backend: {
      kind: 'mcp',
      fields,
      setArgs: [],
      timeoutMs: 5_000,
      retryOnNewSession: true,
      ...backend,
    },
    source: { file: 'kind.mcp.kdl', line: line++, column: 5 },
  };
}

function specOf(servers: McpServerDescriptor[], tools: GrantOf<'mcp'>[]): CompiledSpec {
  return {
    file: 'kind.mcp.kdl',
    server: { name: 'k', version: '1.0.0' },
    tools,
    resources: [],
    prompts: [],
    toolsets: [],
    databases: [],
    upstreams: [],
    oauthProviders: [],
    listTokens: 20_000,
    mcpServers: servers,
  };
}

const noTexts = (value: Record<string, unknown>) => ({ value, texts: undefined });

describe('the mcp kind against server-everything over stdio', () => {
  const logs: string[] = [];
  const log = {
    warn: (m: string) => logs.push(`warn: ${m}`),
    info: (m: string) => logs.push(`info: ${m}`),
  };
  const echo = grant('echo_text', { server: 'everything', tool: 'echo' }, [
    { name: 'text', upstream: 'message', type: 'string' },
  ]);
  const pinned = grant('echo_pinned', {
    server: 'everything',
    tool: 'echo',
    setArgs: [{ path: ['message'], value: 'always this' }],
  });
  const sum = grant('sum', { server: 'everything', tool: 'get-sum' }, [
    { name: 'a', upstream: 'a', type: 'number' },
    { name: 'b', upstream: 'b', type: 'string' },
  ]);
  const gone = grant('gone', { server: 'everything', tool: 'no-such-tool' });
  const grants = [echo, pinned, sum, gone];
  let kind: BackendKind<'mcp'>;
  const redact = makeRedactor([]);

  beforeAll(async () => {
    kind = await createMcpKind({
      env: process.env,
      grants,
      spec: specOf([server('everything', EVERYTHING)], grants),
      log,
    });
  });
  afterAll(() => kind?.close());

  it('reports the server in readiness, starting and then up', async () => {
    expect(kind.readiness?.()).toEqual({ servers: { everything: expect.any(String) } });
    await until(
      () => (kind.readiness?.() as { servers: { everything: string } }).servers.everything === 'up',
    );
  });

  it('sends the declared arguments only, under their upstream names', async () => {
    const out = await kind
      .prepare(echo, redact)
      .invoke(noTexts({ text: 'hi', extra: 'never sent' }), {});
    expect(out).toEqual({ ok: true, value: { result: 'Echo: hi', resultJson: '"Echo: hi"' } });
  });

  it('sends the pinned values of set { arg } whatever the caller gives', async () => {
    const out = await kind.prepare(pinned, redact).invoke(noTexts({ message: 'mine' }), {});
    expect(out).toMatchObject({ ok: true, value: { result: 'Echo: always this' } });
  });

  it('maps a tool error to UPSTREAM_TOOL_ERROR with the upstream text', async () => {
    const out = await kind.prepare(gone, redact).invoke(noTexts({}), {});
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'UPSTREAM_TOOL_ERROR',
        message: expect.stringContaining('no-such-tool not found'),
      },
    });
  });

  it('logs drift at boot: a missing tool and an argument typed otherwise, with file:line', async () => {
    await until(() => logs.some((l) => l.includes('grant gone')));
    expect(logs).toContainEqual(
      `warn: drift: kind.mcp.kdl:${gone.source.line}: grant gone: mcp-server everything does not list the tool "no-such-tool"`,
    );
    expect(
      logs.some((l) => l.includes(`:${sum.source.line}: grant sum: argument "b": declared string`)),
    ).toBe(true);
    expect(logs.some((l) => l.includes('grant echo_text'))).toBe(false);
  });
});

describe('the mcp kind with a hostile child', () => {
  it('passes from-env values to the child, and knows them as secrets', async () => {
    const g = grant('env', { server: 'h', tool: 'env' });
    const kind = await createMcpKind({
      env: { ...process.env, HANDBOOK_TOKEN: 'tok-4f9a2c71e3' },
      grants: [g],
      spec: specOf(
        [
          server(
            'h',
            HOSTILE,
            stdio(HOSTILE, [
              { name: 'API_TOKEN', fromEnv: 'HANDBOOK_TOKEN' },
              { name: 'LOG_LEVEL', value: 'warn' },
            ]),
          ),
        ],
        [g],
      ),
    });
    try {
      expect(kind.secrets()).toEqual(['tok-4f9a2c71e3']);
      const redact = makeRedactor(kind.secrets());
      const out = await kind.prepare(g, redact).invoke(noTexts({}), {});
      expect(out.ok).toBe(true);
      const env = (out as { value: { result: { env: Record<string, string> } } }).value.result.env;
      // The value reached the child, and was redacted on the way back.
      expect(env.API_TOKEN).toBe('[REDACTED]');
      expect(env.LOG_LEVEL).toBe('warn');
      expect(env.HANDBOOK_TOKEN).toBeUndefined();
    } finally {
      await kind.close();
    }
  });

  it('redacts a secret the tool error quotes', async () => {
    const g = grant('fail', {
      server: 'h',
      tool: 'fail',
      setArgs: [{ path: ['message'], value: 'token tok-4f9a2c71e3 refused' }],
    });
    const kind = await createMcpKind({
      env: { ...process.env, T: 'tok-4f9a2c71e3' },
      grants: [g],
      spec: specOf([server('h', HOSTILE, stdio(HOSTILE, [{ name: 'X', fromEnv: 'T' }]))], [g]),
    });
    try {
      const out = await kind.prepare(g, makeRedactor(kind.secrets())).invoke(noTexts({}), {});
      expect(out).toEqual({
        ok: false,
        error: {
          code: 'UPSTREAM_TOOL_ERROR',
          message: 'mcp-server h, tool "fail" answered with an error: token [REDACTED] refused',
        },
      });
    } finally {
      await kind.close();
    }
  });

  it('a child that dies is UPSTREAM_UNAVAILABLE, retryable', async () => {
    const g = grant('die', { server: 'h', tool: 'die' });
    const kind = await createMcpKind({
      env: process.env,
      grants: [g],
      spec: specOf([server('h', HOSTILE)], [g]),
    });
    try {
      const out = await kind.prepare(g, makeRedactor([])).invoke(noTexts({}), {});
      expect(out).toMatchObject({
        ok: false,
        error: { code: 'UPSTREAM_UNAVAILABLE', retryAfter: 1 },
      });
    } finally {
      await kind.close();
    }
  });

  it('refuses to start when a from-env variable is unset, naming it', async () => {
    const g = grant('env', { server: 'h', tool: 'env' });
    const opening = createMcpKind({
      env: { PATH: process.env.PATH },
      grants: [g],
      spec: specOf(
        [server('h', HOSTILE, stdio(HOSTILE, [{ name: 'API_TOKEN', fromEnv: 'NOT_SET_HERE' }]))],
        [g],
      ),
    });
    await expect(opening).rejects.toThrow(StartupError);
    await expect(opening).rejects.toThrow(/NOT_SET_HERE/);
  });

  it('refuses to start when the program is not found, naming it', async () => {
    const g = grant('x', { server: 'h', tool: 'x' });
    const transport = {
      kind: 'command' as const,
      program: 'no-such-mcp-program',
      args: [],
      cwd: process.cwd(),
      env: [],
    };
    await expect(
      createMcpKind({
        env: process.env,
        grants: [g],
        spec: specOf([server('h', HOSTILE, transport)], [g]),
      }),
    ).rejects.toThrow(/no-such-mcp-program/);
  });
});

describe('the arguments message', () => {
  it('carries the caller numbers as written', () => {
    const args = parseJson('{"n":12345678901234567890}');
    const text = messageText(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: args.value } },
      // The texts sit under params.arguments, as upstream-tools.ts grafts them.
      NumberTexts.withMember(undefined, 'arguments', args.texts),
    );
    expect(text).toContain('"arguments":{"n":12345678901234567890}');
  });
});

describe('a gateway with mcp grants', () => {
  it('serves a call through the whole pipeline and reports its servers for /readyz', async () => {
    const g = grant('echo_text', { server: 'everything', tool: 'echo' }, [
      { name: 'text', upstream: 'message', type: 'string' },
    ]);
    const gateway = await Gateway.prepare(specOf([server('everything', EVERYTHING)], [g]), {
      env: process.env,
    });
    try {
      expect(await gateway.ready()).toBe(true);
      expect(gateway.readiness()).toEqual({ servers: { everything: expect.any(String) } });
      const out = await gateway.call(
        gateway.view().operation('echo_text')!,
        noTexts({ text: 'hi' }),
        scopeFor(ANONYMOUS),
      );
      expect(out.ok).toBe(true);
      expect(gateway.readiness()).toEqual({ servers: { everything: 'up' } });
    } finally {
      await gateway.close();
    }
  });

  it('is ready while an upstream is down, which readiness names', async () => {
    const g = grant('die', { server: 'h', tool: 'die' });
    const gateway = await Gateway.prepare(
      specOf(
        [
          server('h', HOSTILE, {
            kind: 'command',
            program: NODE,
            args: [HOSTILE, '--exit-at-start'],
            cwd: process.cwd(),
            env: [],
          }),
        ],
        [g],
      ),
      { env: process.env },
    );
    try {
      await until(() => (gateway.readiness() as { servers: { h: string } }).servers.h === 'down');
      expect(await gateway.ready()).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});

describe('check --live', () => {
  it('reports drift of every grant against the listed tools, and fails on it', async () => {
    const ok = grant('echo_text', { server: 'everything', tool: 'echo' }, [
      { name: 'message', upstream: 'message', type: 'string' },
    ]);
    const gone = grant('gone', { server: 'everything', tool: 'no-such-tool' });
    const report = await checkLive(
      specOf([server('everything', EVERYTHING)], [ok, gone]),
      process.env,
    );
    expect(report).toEqual({
      lines: [
        `kind.mcp.kdl:${gone.source.line}: grant gone: mcp-server everything does not list the tool "no-such-tool" (drift)`,
      ],
      failed: true,
    });
  });

  it('passes when every grant matches', async () => {
    const ok = grant('echo_text', { server: 'everything', tool: 'echo' }, [
      { name: 'message', upstream: 'message', type: 'string' },
    ]);
    expect(await checkLive(specOf([server('everything', EVERYTHING)], [ok]), process.env)).toEqual({
      lines: [],
      failed: false,
    });
  });
});
