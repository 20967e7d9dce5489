/**
 * Numbers exactly as sent, over REST and MCP against a recording upstream: a `raw`
 * value reaches the upstream with the caller's bytes for every number (JSON and form
 * bodies), and a typed `number`/`integer` a double cannot hold is refused naming the
 * field, never rounded. The bodies are written as text: JavaScript cannot hold them.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const SPEC = (upstream: string): string => `
wrap "exact" version="1.0.0"
base-url "${upstream}"
can create thing {
    describe "Create a thing."
    path "/things"
    body {
        name "string"
        amount "number"
        count "integer"
        tags "number[]"
        meta "raw"
        nested "object" {
            extra "raw"
            n "number"
        }
    }
}
can create form-thing {
    describe "Create a thing with a form body."
    path "/form-things"
    body encoding="form" {
        meta "raw" kind="object"
    }
}
can list things {
    describe "Things by price."
    path "/things"
    query {
        price "number"
    }
}
`;

const RAW = '{"meta":{"id":12345678901234567890,"x":1e400,"y":-0}}';

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(SPEC, { answer: okJson }, (s) => ({ upstream, gw } = s));

interface Sent {
  status: number;
  json: unknown;
  /** What the upstream received for this call, if anything. */
  upstreamBody: string | undefined;
  upstreamQuery: string | undefined;
}

async function rest(tool: string, bodyText: string): Promise<Sent> {
  const before = upstream.requests.length;
  const r = await postJson(`${gw.url}/api/${tool}`, bodyText);
  const got = upstream.requests.slice(before);
  expect(got.length).toBeLessThanOrEqual(1);
  return {
    status: r.status,
    json: r.json,
    upstreamBody: got[0]?.body,
    upstreamQuery: got[0]?.query,
  };
}

async function mcp(tool: string, argsText: string): Promise<Sent> {
  const before = upstream.requests.length;
  const r = await postJson(
    `${gw.url}/mcp`,
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${argsText}}}`,
    { accept: 'application/json, text/event-stream' },
  );
  expect(r.status).toBe(200);
  const got = upstream.requests.slice(before);
  expect(got.length).toBeLessThanOrEqual(1);
  return {
    status: r.status,
    json: r.json,
    upstreamBody: got[0]?.body,
    upstreamQuery: got[0]?.query,
  };
}

const SURFACES = [
  ['REST', rest],
  ['MCP', mcp],
] as const;

interface ToolResult {
  isError: boolean;
  content: { text: string }[];
}

/** The error code and message of a refused call, whichever surface answered. */
function refusal(surface: string, sent: Sent): { code: string; message: string; fields: string[] } {
  if (surface === 'REST') {
    expect(sent.status).toBe(400);
    const e = (
      sent.json as { error: { code: string; message: string; details: { field: string }[] } }
    ).error;
    return { code: e.code, message: e.message, fields: e.details.map((d) => d.field) };
  }
  const result = (sent.json as { result: ToolResult }).result;
  expect(result.isError).toBe(true);
  const text = result.content[0]!.text;
  return { code: text.split(':')[0]!, message: text, fields: [] };
}

describe.each(SURFACES)('over %s', (surface, send) => {
  it('forwards a raw value with the caller’s bytes for every number', async () => {
    const sent = await send('create_thing', RAW);
    expect(sent.upstreamBody).toBe(RAW);
  });

  it('keeps the digits of numbers nested in arrays and objects of a raw field inside an object', async () => {
    const args =
      '{"nested":{"extra":[1.50,{"big":-123456789012345678901234567890.000},0.0000001,1E2],"n":2.5}}';
    const sent = await send('create_thing', args);
    expect(sent.upstreamBody).toBe(args);
  });

  it('refuses a number field a double cannot hold, naming the field, and sends nothing', async () => {
    const sent = await send('create_thing', '{"amount":9007199254740993}');
    expect(sent.upstreamBody).toBeUndefined();
    const r = refusal(surface, sent);
    expect(r.code).toBe('INVALID_ARGUMENTS');
    expect(r.message).toContain('amount is 9007199254740993');
    if (surface === 'REST') expect(r.fields).toEqual(['/amount']);
  });

  it('refuses an item of a number[] field that would be rounded, naming its index', async () => {
    const sent = await send('create_thing', '{"tags":[0.5,0.10000000000000000001]}');
    expect(sent.upstreamBody).toBeUndefined();
    const r = refusal(surface, sent);
    expect(r.code).toBe('INVALID_ARGUMENTS');
    expect(r.message).toContain('tags.1 is 0.10000000000000000001');
    if (surface === 'REST') expect(r.fields).toEqual(['/tags/1']);
  });

  it('refuses a nested number and an integer beyond what a double holds', async () => {
    const nested = refusal(surface, await send('create_thing', '{"nested":{"n":1e-400}}'));
    expect(nested.code).toBe('INVALID_ARGUMENTS');
    expect(nested.message).toContain('nested.n is 1e-400');
    const integer = refusal(surface, await send('create_thing', '{"count":1.0000000000000001}'));
    expect(integer.code).toBe('INVALID_ARGUMENTS');
    expect(integer.message).toContain('count is 1.0000000000000001');
  });

  it('sends typed numbers written differently but holding the same value', async () => {
    const sent = await send('create_thing', '{"amount":1.50,"count":1E2,"tags":[-0,2.0]}');
    expect(sent.upstreamBody).toBe('{"amount":1.5,"count":100,"tags":[0,2]}');
  });

  it('refuses a query number a double cannot hold', async () => {
    const sent = await send('list_things', '{"price":12345678901234567890}');
    expect(sent.upstreamQuery).toBeUndefined();
    expect(refusal(surface, sent).code).toBe('INVALID_ARGUMENTS');
  });

  it('flattens a raw value into a form body with the caller’s digits', async () => {
    const sent = await send('create_form_thing', '{"meta":{"id":12345678901234567890,"l":[1.50]}}');
    expect(sent.upstreamBody).toBe('meta%5Bid%5D=12345678901234567890&meta%5Bl%5D%5B%5D=1.50');
  });

  it('leaves a body without such numbers as it always was', async () => {
    const sent = await send('create_thing', '{"name":"a:1e5","amount":2.5,"meta":[1,-2,0.25]}');
    expect(sent.upstreamBody).toBe('{"name":"a:1e5","amount":2.5,"meta":[1,-2,0.25]}');
  });
});
