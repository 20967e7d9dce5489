/**
 * pick / omit fail closed end to end (spec-language.md, "Shaping results (`pick` and
 * `omit`)"; security.md, "Shaping (`pick` and `omit`)"): a real upstream on 127.0.0.1
 * sends an omitted field's value (a unique marker) in every way the red team found, and
 * neither the REST answer, nor the MCP answer, nor the gateway's logs hold any spelling
 * of it.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { leaksIn } from '../helpers/leaks.js';
import { postToolCall } from '../helpers/call-tool.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const MARKER = 'omitted-7Qk2-marker';

const SPEC = (upstream: string): string => `
wrap "shaping-fails-closed" version="1.0.0"
base-url "${upstream}"
can get omitted { path "/omitted"; omit "body" "user.email" "labels[].secret"; }
can get picked {
    path "/picked"
    pick "id" "user.login" "labels[].name"
    max-bytes 20000
}
`;

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(
  SPEC,
  {
    answer: (_req, res) => {
      res.end();
    },
  },
  (s) => ({ upstream, gw } = s),
);

/** The upstream's next answers: a status, a content type (none when undefined), a body. */
function answer(status: number, contentType: string | undefined, body: string): void {
  upstream.handle((_req, res: ServerResponse) => {
    res.writeHead(status, contentType === undefined ? {} : { 'content-type': contentType });
    res.end(body);
  });
}

interface Answer {
  status: number;
  text: string;
  json: unknown;
}

/** The same call over REST and over MCP (legacy era, plain JSON answer). */
async function callBoth(tool: string): Promise<{ rest: Answer; mcp: Answer }> {
  const rest = await postJson(`${gw.url}/api/${tool}`, {});
  const mcp = await postToolCall(gw.url, tool, {}, { era: 'legacy' });
  // Nothing of the marker in either answer's bytes, in any spelling, nor in the logs.
  expect(leaksIn(rest.text, [MARKER])).toEqual([]);
  expect(leaksIn(mcp.text, [MARKER])).toEqual([]);
  expect(leaksIn(gw.logs(), [MARKER])).toEqual([]);
  return { rest, mcp };
}

interface Envelope {
  coverage: Record<string, unknown>;
  result: unknown;
}
interface McpAnswer {
  result: { isError?: boolean; structuredContent?: Envelope; content: { text: string }[] };
}
const restEnvelope = (a: Answer): Envelope => a.json as Envelope;
const mcpResult = (a: Answer): McpAnswer['result'] => (a.json as McpAnswer).result;
const restError = (a: Answer) =>
  (a.json as { error: { code: string; message: string; details?: unknown } }).error;

describe('error answers of a shaped grant', () => {
  it('carry the status of an upstream error and no excerpt of its body', async () => {
    answer(500, 'application/json', JSON.stringify({ error: 'boom', body: MARKER }));
    const { rest, mcp } = await callBoth('get_omitted');
    expect(rest.status).toBe(502);
    expect(restError(rest)).toMatchObject({ code: 'UPSTREAM_STATUS', details: { status: 500 } });
    expect(restError(rest).details).toEqual({ status: 500 });
    expect(mcpResult(mcp).isError).toBe(true);
    expect(mcpResult(mcp).content[0]!.text).toContain('status 500');
  });

  it('say the upstream sent invalid JSON without quoting it', async () => {
    answer(200, 'application/json', `{"id":1,"body":"${MARKER}"`);
    const { rest, mcp } = await callBoth('get_omitted');
    expect(rest.status).toBe(502);
    expect(restError(rest).code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(mcpResult(mcp).isError).toBe(true);
  });
});

describe('a shaped grant whose upstream sends JSON under another content type', () => {
  for (const type of ['text/plain', undefined]) {
    it(`parses and shapes it (${type ?? 'no content type'})`, async () => {
      answer(200, type, JSON.stringify({ id: 1, body: MARKER, user: { login: 'ada' } }));
      const { rest, mcp } = await callBoth('get_omitted');
      expect(rest.status).toBe(200);
      for (const env of [restEnvelope(rest), mcpResult(mcp).structuredContent!]) {
        expect(env.result).toEqual({ id: 1, user: { login: 'ada' } });
        expect(env.coverage).toMatchObject({ shaped: true });
        expect(env.coverage).not.toHaveProperty('withheld');
      }
    });
  }
});

describe('a shaped grant whose upstream sends what is not JSON', () => {
  it('withholds a text body: result null, coverage.shaped and a note why', async () => {
    answer(200, 'text/plain', `id=1 body=${MARKER}`);
    const { rest, mcp } = await callBoth('get_picked');
    expect(rest.status).toBe(200);
    expect(mcpResult(mcp).isError).toBe(false);
    for (const env of [restEnvelope(rest), mcpResult(mcp).structuredContent!]) {
      expect(env.result).toBeNull();
      expect(env.coverage).toMatchObject({ shaped: true, withheld: expect.any(String) });
      expect(env.coverage.withheld).toMatch(/not JSON/);
    }
    expect(rest.text).toMatch(
      /^\{"coverage":\{[^}]*"shaped":true,"withheld":"[^"]+","over_budget"/,
    );
    expect(JSON.parse(mcpResult(mcp).content[0]!.text)).toEqual(mcpResult(mcp).structuredContent);
  });

  it('withholds a body cut at the read cap, which is not JSON that can be parsed', async () => {
    // Over the read cap (1 MiB at this max-bytes): the gateway reads the first MiB and drops the connection.
    const big = `{"id":1,"body":"${MARKER}","pad":"${'x'.repeat(1_200_000)}"}`;
    answer(200, 'text/plain', big);
    const { rest, mcp } = await callBoth('get_picked');
    expect(rest.status).toBe(200);
    for (const env of [restEnvelope(rest), mcpResult(mcp).structuredContent!]) {
      expect(env.result).toBeNull();
      expect(env.coverage).toMatchObject({ shaped: true, withheld: expect.any(String) });
      expect(env.coverage.withheld).toMatch(/read cap/);
    }
  });

  it('answers null for an empty body, with nothing withheld', async () => {
    answer(200, 'text/plain', '');
    const { rest } = await callBoth('get_picked');
    expect(restEnvelope(rest).result).toBeNull();
    expect(restEnvelope(rest).coverage).toMatchObject({ shaped: true });
    expect(restEnvelope(rest).coverage).not.toHaveProperty('withheld');
  });
});

describe('a shaped grant whose upstream sends another shape than the paths say', () => {
  const body = JSON.stringify({
    id: 1,
    body: MARKER,
    user: [{ login: 'ada', email: MARKER }],
    labels: { name: 'bug', secret: MARKER },
  });

  it('under pick drops the array where an object was named and the object where [] was', async () => {
    answer(200, 'application/json', body);
    const { rest, mcp } = await callBoth('get_picked');
    expect(restEnvelope(rest).result).toEqual({ id: 1 });
    expect(mcpResult(mcp).structuredContent!.result).toEqual({ id: 1 });
  });

  it('under omit removes the field from each element and from the lone object', async () => {
    answer(200, 'application/json', body);
    const { rest, mcp } = await callBoth('get_omitted');
    const want = { id: 1, user: [{ login: 'ada' }], labels: { name: 'bug' } };
    expect(restEnvelope(rest).result).toEqual(want);
    expect(mcpResult(mcp).structuredContent!.result).toEqual(want);
  });
});
