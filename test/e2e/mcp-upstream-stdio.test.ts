/**
 * Upstream MCP grants end to end against server-everything, the reference server,
 * started by the real gateway as a stdio child from a spec text: what callers list and
 * call over MCP (the SDK client in both eras) and REST, what the upstream received, the
 * failures it can cause, its environment, and a child killed from outside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Era } from '../helpers/call-tool.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { MODERN } from '../helpers/mcp-wire.js';
import {
  childrenRunning,
  eventually,
  EVERYTHING,
  gatewayEnv,
  kdl,
  NODE,
  rest,
} from '../helpers/stdio-children.js';

const SECRET = 'tok-everything-7d41c9a2e05b';
const OTHER_SECRET = 'postgres://gateway:never-for-children@db/app';

const SPEC = `wrap "everything-e2e" version="1.0.0"

mcp-server "everything" {
    command ${kdl(NODE)} ${kdl(EVERYTHING)} "stdio"
    env "LOG_LEVEL" "warn"
    env "API_TOKEN" from-env="EVERYTHING_TOKEN"
    timeout "20s"
}

can get echo {
    describe "Repeat a short text, as the upstream says it."
    tool "everything" "echo"
    args {
        text "string" required=#true max-length=40 as="message"
    }
}

can get sum-with-hundred {
    describe "Add 100 to a number."
    tool "everything" "get-sum"
    args {
        a "number" required=#true min=-1000 max=1000
    }
    set {
        arg "b" 100
    }
}

can get weather {
    describe "The weather of a city, temperature and conditions only."
    tool "everything" "get-structured-content"
    args {
        location "string" required=#true {
            enum "New York" "Chicago" "Los Angeles"
        }
    }
    pick "temperature" "conditions"
}

can get long-echo {
    describe "Repeat a long text, capped."
    tool "everything" "echo"
    args {
        message "string" required=#true max-length=4000
    }
    max-bytes 600
}

can run slow-operation {
    describe "An operation that takes seconds."
    tool "everything" "trigger-long-running-operation"
    args {
        duration "number" required=#true min=1 max=30
    }
    set {
        arg "steps" 1
    }
    timeout "1s"
}

can get missing {
    describe "A tool the upstream does not have."
    tool "everything" "no-such-tool"
}

can get echo-picked {
    describe "Echo, shaped: its text answer cannot be."
    tool "everything" "echo"
    args {
        message "string" required=#true max-length=40
    }
    pick "message"
}

can get environment {
    describe "The child's environment."
    tool "everything" "get-env"
}
`;

let gw: TestGateway;
let url: string;

beforeAll(async () => {
  gw = await startGateway(SPEC, {
    env: gatewayEnv({ EVERYTHING_TOKEN: SECRET, DATABASE_URL: OTHER_SECRET }),
  });
  url = gw.url;
  await eventually(async () => (await readyz()).servers?.everything === 'up', 30_000);
});

afterAll(async () => {
  await gw?.close();
  expect(childrenRunning(EVERYTHING)).toEqual([]);
});

async function readyz(): Promise<{ status?: string; servers?: Record<string, string> }> {
  const res = await fetch(`${url}/readyz`);
  return (await res.json()) as { status?: string; servers?: Record<string, string> };
}

interface Envelope<R = unknown> {
  coverage: Record<string, unknown>;
  result: R;
}

const ERAS: Era[] = ['modern', 'legacy'];

describe('tools/list of server-everything grants', () => {
  for (const era of ERAS)
    it(`serves the grants as written, never the upstream's list, to a ${era} client`, async () => {
      const client = new Client(
        { name: 'stdio-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual([
          'get_echo',
          'get_sum_with_hundred',
          'get_weather',
          'get_long_echo',
          'run_slow_operation',
          'get_missing',
          'get_echo_picked',
          'get_environment',
        ]);
        const echo = tools.find((t) => t.name === 'get_echo')!;
        expect(echo.description).toBe('Repeat a short text, as the upstream says it.');
        expect(echo.inputSchema).toMatchObject({
          type: 'object',
          properties: { text: { type: 'string', maxLength: 40 } },
          required: ['text'],
        });
        expect(Object.keys(echo.inputSchema.properties ?? {})).toEqual(['text']);
        const sum = tools.find((t) => t.name === 'get_sum_with_hundred')!;
        expect(Object.keys(sum.inputSchema.properties ?? {})).toEqual(['a']);
        const listed = JSON.stringify(tools);
        // The upstream's own words and names are nowhere in what callers read.
        for (const theirs of [
          'Echoes back the input string',
          'Returns the sum of two numbers',
          'Message to echo',
          'get-tiny-image',
          'toggle-simulated-logging',
        ])
          expect(listed).not.toContain(theirs);
      } finally {
        await client.close();
      }
    });
});

describe('calls of server-everything grants', () => {
  for (const era of ERAS) {
    it(`sends a declared argument under its upstream name (${era} MCP)`, async () => {
      const out = await callTool<Envelope>(url, 'get_echo', { text: `hello ${era}` }, { era });
      expect(out.isError).toBe(false);
      expect(out.structuredContent?.result).toBe(`Echo: hello ${era}`);
    });

    it(`sends the pinned argument beside the declared one (${era} MCP)`, async () => {
      const out = await callTool<Envelope>(url, 'get_sum_with_hundred', { a: 5 }, { era });
      expect(out.structuredContent?.result).toBe('The sum of 5 and 100 is 105.');
    });
  }

  it('answers the same over REST, in the envelope', async () => {
    const echo = await rest(url, 'get_echo', { text: 'over rest' });
    expect(echo.status).toBe(200);
    expect((echo.json as Envelope).result).toBe('Echo: over rest');
    const sum = await rest(url, 'get_sum_with_hundred', { a: -7 });
    expect((sum.json as Envelope).result).toBe('The sum of -7 and 100 is 93.');
  });

  it('refuses a caller trying to set the pinned argument, or any undeclared one', async () => {
    const pinned = await rest(url, 'get_sum_with_hundred', { a: 5, b: 1 });
    expect(pinned.status).toBe(400);
    expect(pinned.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    const mcp = await callTool(url, 'get_echo', { text: 'x', message: 'smuggled' });
    expect(mcp.isError).toBe(true);
    expect(mcp.content[0]!.text).toMatch(/^INVALID_ARGUMENTS: /);
  });

  it('refuses an argument over its max-length, and one outside its enum', async () => {
    const long = await rest(url, 'get_echo', { text: 'y'.repeat(41) });
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    const city = await callTool(url, 'get_weather', { location: 'Paris' }, { era: 'legacy' });
    expect(city.isError).toBe(true);
    expect(city.content[0]!.text).toMatch(/^INVALID_ARGUMENTS: /);
  });

  it('keeps only the picked fields of the structured content', async () => {
    const out = await rest(url, 'get_weather', { location: 'Chicago' });
    expect(out.status).toBe(200);
    const env = out.json as Envelope;
    expect(env.result).toEqual({ temperature: 36, conditions: 'Light rain / drizzle' });
    expect(env.coverage).toMatchObject({ shaped: true, upstream_bytes: expect.any(Number) });
  });

  it('withholds a text answer of a shaped grant, coverage saying why', async () => {
    const out = await rest(url, 'get_echo_picked', { message: 'not json' });
    expect(out.status).toBe(200);
    const env = out.json as Envelope;
    expect(env.result).toBeNull();
    expect(env.coverage).toMatchObject({
      shaped: true,
      withheld: expect.stringContaining('not JSON'),
    });
    expect(out.text).not.toContain('Echo: not json');
  });

  it('cuts a result past the grant max-bytes and says so in coverage', async () => {
    const message = 'z'.repeat(3000);
    const out = await rest(url, 'get_long_echo', { message });
    expect(out.status).toBe(200);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(600);
    const env = out.json as Envelope<string>;
    expect(env.coverage.truncated).toBe(true);
    expect(env.coverage.bytes).toBe(Buffer.byteLength(JSON.stringify(`Echo: ${message}`)));
    expect(env.result.startsWith('Echo: zzz')).toBe(true);
    expect(env.result.length).toBeLessThan(message.length);
    const mcp = await callTool<Envelope>(url, 'get_long_echo', { message }, { era: 'legacy' });
    expect(mcp.structuredContent?.coverage.truncated).toBe(true);
    expect(Buffer.byteLength(mcp.content[0]!.text)).toBeLessThanOrEqual(600);
  });

  it('maps an isError answer to UPSTREAM_TOOL_ERROR, 502 over REST', async () => {
    const out = await rest(url, 'get_missing');
    expect(out.status).toBe(502);
    expect(out.json).toMatchObject({
      error: { code: 'UPSTREAM_TOOL_ERROR', message: expect.stringContaining('not found') },
    });
    const mcp = await callTool(url, 'get_missing');
    expect(mcp.isError).toBe(true);
    expect(mcp.content[0]!.text).toMatch(/^UPSTREAM_TOOL_ERROR: /);
  });

  it('times out a call past the grant timeout with 504, and serves the next call', async () => {
    const out = await rest(url, 'run_slow_operation', { duration: 5 });
    expect(out.status).toBe(504);
    expect(out.json).toMatchObject({ error: { code: 'UPSTREAM_TIMEOUT' } });
    const mcp = await callTool(url, 'run_slow_operation', { duration: 5 }, { era: 'legacy' });
    expect(mcp.content[0]!.text).toMatch(/^UPSTREAM_TIMEOUT: /);
    const next = await rest(url, 'get_echo', { text: 'after the timeout' });
    expect((next.json as Envelope).result).toBe('Echo: after the timeout');
  });
});

describe('the environment of the server-everything child', () => {
  it('holds only PATH, HOME, LANG and the declared variables, the from-env one redacted', async () => {
    const out = await rest(url, 'get_environment');
    expect(out.status).toBe(200);
    const env = (out.json as Envelope<Record<string, string>>).result;
    expect(Object.keys(env).sort()).toEqual(['API_TOKEN', 'HOME', 'LANG', 'LOG_LEVEL', 'PATH']);
    expect(env).toMatchObject({ LANG: 'C.UTF-8', LOG_LEVEL: 'warn', PATH: process.env.PATH });
    // The child had the value (the gateway found it in the answer), and no caller reads it.
    expect(env.API_TOKEN).toBe('[REDACTED]');
    expect(out.text).not.toContain(SECRET);
    expect(out.text).not.toContain('never-for-children');
  });

  it('writes neither secret of the gateway to its log', () => {
    expect(gw.logs()).not.toContain(SECRET);
    expect(gw.logs()).not.toContain('never-for-children');
  });
});

describe('/readyz and a killed server-everything child', () => {
  it('names the server up', async () => {
    expect(await readyz()).toEqual({ status: 'ready', servers: { everything: 'up' } });
  });

  it('answers UPSTREAM_UNAVAILABLE (503) once the child is killed, and serves again after its restart', async () => {
    const [pid, ...others] = childrenRunning(EVERYTHING);
    expect(others).toEqual([]);
    process.kill(pid!, 'SIGKILL');
    // Called at once: the child is dead or dying, and its restart is 1 s away.
    const down = await rest(url, 'get_echo', { text: 'while down' });
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(down.headers.get('retry-after')).toBe('1');
    // The gateway stays ready while an upstream is down, and says which (on a slow
    // machine the restart, 1 s after the exit, may already be under way).
    const whileDown = (await readyz()) as { status: string; servers: { everything: string } };
    expect(whileDown.status).toBe('ready');
    expect(['down', 'starting']).toContain(whileDown.servers.everything);
    const mcp = await callTool(url, 'get_echo', { text: 'while down' });
    // The restart may already have come; either it is down or it answers.
    if (mcp.isError) expect(mcp.content[0]!.text).toMatch(/^UPSTREAM_UNAVAILABLE: /);
    const served = await eventually(async () => {
      const r = await rest(url, 'get_echo', { text: 'back again' });
      return r.status === 200 ? r : undefined;
    }, 30_000);
    expect((served.json as Envelope).result).toBe('Echo: back again');
    expect(childrenRunning(EVERYTHING)).not.toContain(pid);
    expect(await readyz()).toEqual({ status: 'ready', servers: { everything: 'up' } });
  });
});
