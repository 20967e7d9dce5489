/**
 * `serve` warms its request path before it is ready (src/server/warm-up/): the warm-up's
 * requests reach none of the spec's upstreams and are counted in no metrics, the first
 * real call on each surface answers as ever, `--warm-up off` skips it, and a bad value
 * is refused. Real processes, a real upstream on 127.0.0.1; nothing here reads a time.
 */
import { Server } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess, type ServeProcess } from '../reliability/serve-process.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';
import { warmUp } from '../../src/server/warm-up/warm-up.js';
import { parseWarmUp, DEFAULT_WARM_UP } from '../../src/server/warm-up/warm-up-setting.js';
import { warmUpOrWarn } from '../../src/server/warm-up/warm-up-or-warn.js';
import { createLogger } from '../../src/server/logger.js';

const spec = (upstream: string): string => `
wrap "warm-up-test" version="1.0.0" {
    describe "Warm-up test."
}
base-url "${upstream}"
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
`;

const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const MODERN = '2026-07-28';

function modernCall(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'get_item',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'get_item',
        arguments: { id: 42 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

/** The log lines of a process, parsed. */
function lines(p: ServeProcess): Record<string, unknown>[] {
  return p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

let upstream: Upstream;
let running: ServeProcess | undefined;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: 42, name: 'real' }));
  });
  return () => upstream.close();
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  upstream.requests.length = 0;
});

describe('serve --warm-up', () => {
  it('warms before listening, reaching no upstream of the spec and counting nothing', async () => {
    running = await serveProcess(spec(upstream.url), ['--warm-up', '300', '--log-level', 'info']);
    const { url } = running;
    const warmed = lines(running).find((l) => l.msg === 'warmed up');
    expect(warmed).toMatchObject({ level: 30, calls: 300 });
    expect(typeof warmed!.ms).toBe('number');
    // The "warmed up" line comes before the "listening" one: readiness follows the warm-up.
    const order = lines(running).map((l) => l.msg);
    expect(order.indexOf('warmed up')).toBeLessThan(order.indexOf('mcp-beaver listening'));
    expect(upstream.requests).toHaveLength(0);

    await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);
    const before = await (await fetch(`${url}/metrics`)).text();
    expect(before).not.toMatch(/^mcp_beaver_tool_calls_total\{/m);
    expect(before).not.toContain('warm-up');
    expect(before).not.toContain('create_item');

    const mcp = await modernCall(url);
    expect(mcp.status).toBe(200);
    const answer = (await mcp.json()) as {
      id: number;
      result: { isError: boolean; structuredContent: { result: { name: string } } };
    };
    expect(answer.id).toBe(7);
    expect(answer.result.isError).toBe(false);
    expect(answer.result.structuredContent.result.name).toBe('real');

    const rest = await fetch(`${url}/api/get_item`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ id: 42 }),
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { result: { name: string } }).result.name).toBe('real');

    expect(upstream.requests.map((r) => r.path)).toEqual(['/items/42', '/items/42']);
    const after = await (await fetch(`${url}/metrics`)).text();
    expect(after).toMatch(/^mcp_beaver_tool_calls_total\{[^}]*surface="mcp"[^}]*\} 1$/m);
    expect(after).toMatch(/^mcp_beaver_tool_calls_total\{[^}]*surface="rest"[^}]*\} 1$/m);
    // No audit line of the warm-up's tools, no access line of its requests.
    const said = running.output();
    expect(said).not.toContain('list_items');
    expect(said).not.toContain('create_item');
    expect(lines(running).filter((l) => l.path === '/api/get_item')).toHaveLength(1);
  });

  it('takes its size from MCP_BEAVER_WARM_UP when the flag is not given', async () => {
    running = await serveProcess(spec(upstream.url), ['--log-level', 'info'], {
      MCP_BEAVER_WARM_UP: '40',
    });
    expect(lines(running).find((l) => l.msg === 'warmed up')).toMatchObject({ calls: 40 });
  });

  it('each worker of --workers warms itself', async () => {
    running = await serveProcess(spec(upstream.url), [
      '--workers',
      '2',
      '--warm-up',
      '100',
      '--log-level',
      'info',
    ]);
    const warmed = lines(running).filter((l) => l.msg === 'warmed up');
    expect(warmed.map((l) => l.worker).sort()).toEqual([1, 2]);
    expect(warmed.every((l) => l.calls === 100)).toBe(true);
    expect(upstream.requests).toHaveLength(0);
    const mcp = await modernCall(running.url);
    expect(((await mcp.json()) as { result: { isError: boolean } }).result.isError).toBe(false);
  });

  it('--warm-up off skips it: no line, and the first call answers', async () => {
    running = await serveProcess(spec(upstream.url), ['--warm-up', 'off', '--log-level', 'info'], {
      MCP_BEAVER_WARM_UP: '40',
    });
    await expect.poll(async () => (await fetch(`${running!.url}/readyz`)).status).toBe(200);
    expect(running.output()).not.toContain('warmed up');
    const mcp = await modernCall(running.url);
    expect(((await mcp.json()) as { result: { isError: boolean } }).result.isError).toBe(false);
    expect(upstream.requests).toHaveLength(1);
  });

  it('refuses a bad value, from the flag or the variable', async () => {
    const file = 'specs/demo.mcp.kdl';
    const flag = await runCli(['serve', file, '--warm-up', 'lots']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      '--warm-up: the warm-up takes a number of requests from 0 to 100000, or off',
    );
    const env = await runCli(['serve', file], { env: { MCP_BEAVER_WARM_UP: '-5' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('MCP_BEAVER_WARM_UP="-5": the warm-up takes a number');
    const stdio = await runCli(['serve', file, '--stdio', '--warm-up', '10']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('--warm-up does not apply');
  });
});

describe('warmUp', () => {
  it('sends its requests through an app of its own and closes every server it opened', async () => {
    const servers = (): number =>
      (process as unknown as { _getActiveHandles(): unknown[] })
        ._getActiveHandles()
        .filter((h) => h instanceof Server).length;
    const before = servers();
    const done = await warmUp(60, false);
    expect(done.calls).toBe(60);
    // A closed server leaves the handle list once libuv has closed it, a turn later.
    await expect.poll(servers).toBe(before);
  });

  it('a warm-up that fails is a warning, and start-up goes on', async () => {
    let said = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        said += chunk.toString();
        done();
      },
    });
    await warmUpOrWarn(10, createLogger('info', sink), () =>
      Promise.reject(new Error('the stub could not listen')),
    );
    const line = JSON.parse(said.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 40,
      msg: 'warm-up failed; serving without it',
      err: 'the stub could not listen',
    });
  });

  it('reads the flag, then the variable, then its default', () => {
    expect(parseWarmUp(undefined, {})).toBe(DEFAULT_WARM_UP);
    expect(parseWarmUp(undefined, { MCP_BEAVER_WARM_UP: '' })).toBe(DEFAULT_WARM_UP);
    expect(parseWarmUp(undefined, { MCP_BEAVER_WARM_UP: 'off' })).toBe(0);
    expect(parseWarmUp('500', { MCP_BEAVER_WARM_UP: 'off' })).toBe(500);
    expect(parseWarmUp('off', { MCP_BEAVER_WARM_UP: '500' })).toBe(0);
    expect(parseWarmUp('0', {})).toBe(0);
    expect(parseWarmUp('1e3', {})).toMatch(/--warm-up: /);
    expect(parseWarmUp('100001', {})).toMatch(/from 0 to 100000/);
  });
});
