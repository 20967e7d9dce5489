/**
 * Upstream MCP grants end to end against a recording stdio fixture
 * (test/fixtures/mcp-upstream/recording-server.mjs writes down every tools/call it
 * receives): the upstream receives exactly the declared and pinned arguments, and
 * nothing at all for a refused call; each failure of the upstream maps to its code on
 * both surfaces; the child's environment, stderr and death.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, postToolCall, type Era } from '../helpers/call-tool.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  childrenRunning,
  eventually,
  gatewayEnv,
  kdl,
  longestLogLine,
  NODE,
  rest,
} from '../helpers/stdio-children.js';

const FIXTURE = new URL('../fixtures/mcp-upstream/recording-server.mjs', import.meta.url).pathname;
const SECRET = 'rec-secret-51f0c3aa9d27';

let dir: string;
let record: string;
let gw: TestGateway;
let url: string;

const spec = (recordFile: string): string => `wrap "recording-e2e" version="1.0.0"

restrict {
    team "support" "billing"
}

mcp-server "rec" {
    command ${kdl(NODE)} ${kdl(FIXTURE)}
    env "RECORD_FILE" ${kdl(recordFile)}
    env "API_TOKEN" from-env="REC_TOKEN"
}

can send note {
    describe "Send a note to a team."
    tool "rec" "echo"
    args {
        team "string" required=#true
        text "string" required=#true max-length=50 as="body"
        code "string" pattern="^[A-Z]{3}-[0-9]{1,4}$"
        priority "integer" min=1 max=5 default=3
    }
    set {
        arg "meta.source" "gateway"
        arg "meta.version" 2
    }
}

can get failure {
    describe "A tool that answers isError."
    tool "rec" "fail"
    set {
        arg "message" "the fixture refused it"
    }
}

can get rejection {
    describe "A tool that answers a JSON-RPC error."
    tool "rec" "reject"
}

can get nothing {
    describe "A tool that never answers."
    tool "rec" "hang"
    timeout "1s"
}

can get nothing-for-long {
    describe "A tool that never answers, waited for long."
    tool "rec" "hang"
    timeout "60s"
}

can run exit {
    describe "A tool whose server exits."
    tool "rec" "exit"
}

can list items {
    describe "Many items."
    tool "rec" "big"
    args {
        count "integer" required=#true min=1 max=1000
    }
    set {
        arg "size" 100
    }
    max-bytes 2048
}

can get environment {
    describe "The child's environment."
    tool "rec" "env"
}

can send stderr-line {
    describe "Write a line to the child's stderr."
    tool "rec" "stderr"
    args {
        line "string" max-length=100
        variable "string" {
            enum "API_TOKEN" "LANG"
        }
        times "integer" min=1 max=1000 default=1
    }
}
`;

interface Received {
  tool: string;
  arguments: Record<string, unknown>;
  pid: number;
}

/** The calls the fixture has received so far (the file exists from before the gateway). */
function received(): Received[] {
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Received);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcpb-e2e-rec-'));
  record = join(dir, 'calls.jsonl');
  writeFileSync(record, '');
  gw = await startGateway(spec(record), { env: gatewayEnv({ REC_TOKEN: SECRET }) });
  url = gw.url;
  await eventually(async () => {
    const r = (await (await fetch(`${url}/readyz`)).json()) as { servers?: { rec?: string } };
    return r.servers?.rec === 'up';
  });
});

afterAll(async () => {
  await gw?.close();
  expect(childrenRunning(FIXTURE)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

interface Envelope<R = unknown> {
  coverage: Record<string, unknown>;
  result: R;
}
type Echoed = Envelope<{ received: Record<string, unknown>; pid: number }>;

const ERAS: Era[] = ['modern', 'legacy'];

describe('what the upstream receives', () => {
  for (const era of ERAS)
    it(`receives the declared arguments, defaults and pinned values only (${era} MCP)`, async () => {
      const before = received().length;
      const out = await callTool<Echoed>(
        url,
        'send_note',
        { team: 'support', text: `from ${era}` },
        { era },
      );
      expect(out.isError).toBe(false);
      const sent = {
        team: 'support',
        body: `from ${era}`,
        priority: 3,
        meta: { source: 'gateway', version: 2 },
      };
      expect(out.structuredContent?.result.received).toEqual(sent);
      expect(received().slice(before)).toEqual([
        { tool: 'echo', arguments: sent, pid: expect.any(Number) },
      ]);
    });

  it('receives the same from REST', async () => {
    const before = received().length;
    const out = await rest(url, 'send_note', {
      team: 'billing',
      text: 'over rest',
      code: 'ABC-12',
      priority: 5,
    });
    expect(out.status).toBe(200);
    expect(
      received()
        .slice(before)
        .map((c) => c.arguments),
    ).toEqual([
      {
        team: 'billing',
        body: 'over rest',
        code: 'ABC-12',
        priority: 5,
        meta: { source: 'gateway', version: 2 },
      },
    ]);
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ['an undeclared argument', { team: 'support', text: 'x', cc: 'all' }, 'INVALID_ARGUMENTS'],
    [
      'the pinned argument',
      { team: 'support', text: 'x', meta: { source: 'me' } },
      'INVALID_ARGUMENTS',
    ],
    ['a team outside restrict', { team: 'sales', text: 'x' }, 'DENIED_BY_RESTRICT'],
    [
      'a code outside its pattern',
      { team: 'support', text: 'x', code: 'abc-1' },
      'INVALID_ARGUMENTS',
    ],
    ['a text over max-length', { team: 'support', text: 'x'.repeat(51) }, 'INVALID_ARGUMENTS'],
    ['a priority over max', { team: 'support', text: 'x', priority: 6 }, 'INVALID_ARGUMENTS'],
  ];
  for (const [what, args, code] of refused)
    it(`receives nothing when a caller sends ${what}, on either surface and era`, async () => {
      const before = received().length;
      const r = await rest(url, 'send_note', args);
      expect(r.status).toBe(code === 'DENIED_BY_RESTRICT' ? 403 : 400);
      expect(r.json).toMatchObject({ error: { code } });
      for (const era of ERAS) {
        const m = await callTool(url, 'send_note', args, { era });
        expect(m.isError).toBe(true);
        expect(m.content[0]!.text.startsWith(`${code}: `)).toBe(true);
      }
      // A call served after the refusals lands in the record: they would have too.
      await rest(url, 'send_note', { team: 'support', text: 'marker' });
      expect(
        received()
          .slice(before)
          .map((c) => c.arguments.body),
      ).toEqual(['marker']);
    });
});

describe('failures of the upstream', () => {
  it('maps isError to UPSTREAM_TOOL_ERROR: 502 over REST, an isError result over MCP', async () => {
    const r = await rest(url, 'get_failure');
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      error: {
        code: 'UPSTREAM_TOOL_ERROR',
        message: 'mcp-server rec, tool "fail" answered with an error: the fixture refused it',
      },
    });
    for (const era of ERAS) {
      const m = await callTool(url, 'get_failure', {}, { era });
      expect(m.isError).toBe(true);
      expect(m.content[0]!.text).toBe(
        'UPSTREAM_TOOL_ERROR: mcp-server rec, tool "fail" answered with an error: the fixture refused it',
      );
    }
  });

  it('maps a JSON-RPC error to UPSTREAM_ERROR, 502 over REST', async () => {
    const r = await rest(url, 'get_rejection');
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      error: {
        code: 'UPSTREAM_ERROR',
        message:
          'mcp-server rec, tool "reject" answered with JSON-RPC error -32000: rejected by the fixture',
      },
    });
    const m = await postToolCall(url, 'get_rejection', {}, { era: 'legacy' });
    expect(m.status).toBe(200);
    expect(m.json).toMatchObject({ result: { isError: true } });
    expect(m.text).toContain('UPSTREAM_ERROR: ');
  });

  it('times out a call with 504 UPSTREAM_TIMEOUT, and serves the next call', async () => {
    const r = await rest(url, 'get_nothing');
    expect(r.status).toBe(504);
    expect(r.json).toMatchObject({ error: { code: 'UPSTREAM_TIMEOUT' } });
    const m = await callTool(url, 'get_nothing', {}, { era: 'legacy' });
    expect(m.content[0]!.text).toMatch(/^UPSTREAM_TIMEOUT: /);
    const next = await rest(url, 'send_note', { team: 'support', text: 'after the timeout' });
    expect(next.status).toBe(200);
  });

  it('cuts a large result to max-bytes, coverage saying what was kept', async () => {
    const r = await rest(url, 'list_items', { count: 200 });
    expect(r.status).toBe(200);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(2048);
    const env = r.json as Envelope<{ items: string[] }>;
    expect(env.coverage.truncated).toBe(true);
    const items = env.coverage.items as { path: string; length: number; kept: number }[];
    const entry = items.find((i) => i.path === '$.items')!;
    expect(entry.length).toBe(200);
    expect(entry.kept).toBe(env.result.items.length);
    expect(entry.kept).toBeLessThan(200);
    expect(env.result.items[0]).toBe('0:'.padEnd(100, 'x'));
  });

  it('fails a call whose child exits with 503 UPSTREAM_UNAVAILABLE, and serves after the restart', async () => {
    const pidBefore = received().at(-1)!.pid;
    const r = await rest(url, 'run_exit');
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE' } });
    const served = await eventually(async () => {
      const s = await rest(url, 'send_note', { team: 'support', text: 'restarted' });
      return s.status === 200 ? (s.json as Echoed) : undefined;
    }, 30_000);
    expect(served.result.pid).not.toBe(pidBefore);
  });

  it('fails a call waiting when its child is killed with UPSTREAM_UNAVAILABLE, over MCP too', async () => {
    const alive = await rest(url, 'send_note', { team: 'support', text: 'which pid' });
    const { pid } = (alive.json as Echoed).result;
    const waiting = callTool(url, 'get_nothing_for_long', {}, { era: 'modern' });
    await eventually(async () => received().at(-1)?.tool === 'hang');
    process.kill(pid, 'SIGKILL');
    const m = await waiting;
    expect(m.isError).toBe(true);
    expect(m.content[0]!.text).toMatch(/^UPSTREAM_UNAVAILABLE: /);
    expect(m.content[0]!.text).toContain('Retry after 1 s.');
    const back = await eventually(async () => {
      const s = await rest(url, 'send_note', { team: 'support', text: 'again' });
      return s.status === 200 ? (s.json as Echoed) : undefined;
    }, 30_000);
    expect(back.result.pid).not.toBe(pid);
  });
});

describe('the child environment and its stderr', () => {
  it('passes the from-env value to the child, which the caller and the log never read', async () => {
    const r = await rest(url, 'get_environment');
    expect(r.status).toBe(200);
    const { env } = (r.json as Envelope<{ env: Record<string, string> }>).result;
    expect(Object.keys(env).sort()).toEqual(['API_TOKEN', 'HOME', 'LANG', 'PATH', 'RECORD_FILE']);
    expect(env.API_TOKEN).toBe('[REDACTED]');
    expect(r.text).not.toContain(SECRET);
    // The child says its variables on stderr: the one from the gateway's env had the
    // secret (the log has it redacted), and the log never holds the secret.
    for (const variable of ['LANG', 'API_TOKEN']) {
      const s = await rest(url, 'send_stderr_line', { variable });
      expect(s.status).toBe(200);
    }
    await eventually(async () => gw.logs().includes('mcp-server rec stderr: API_TOKEN=[REDACTED]'));
    expect(gw.logs()).toContain('mcp-server rec stderr: LANG=C.UTF-8');
    // A caller's text holding the secret is redacted in the log too.
    const s = await rest(url, 'send_stderr_line', { line: `my token is ${SECRET}` });
    expect(s.status).toBe(200);
    await eventually(async () => gw.logs().includes('my token is [REDACTED]'));
    expect(gw.logs()).not.toContain(SECRET);
  });

  it('logs a long stderr line cut to its cap', async () => {
    const r = await rest(url, 'send_stderr_line', { line: 'abcdefghij', times: 1000 });
    expect(r.status).toBe(200);
    await eventually(async () => gw.logs().includes('bytes, cut)'));
    const line = gw
      .logs()
      .split('\n')
      .find((l) => l.includes('bytes, cut)'))!;
    expect(line).toContain('mcp-server rec stderr: abcdefghij');
    expect(line).not.toContain('abcdefghij'.repeat(300));
    expect(longestLogLine(gw.logs())).toBeLessThan(4096);
  });
});
