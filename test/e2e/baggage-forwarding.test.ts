/**
 * Issue 37: W3C `baggage` is passed on to upstreams only when it is valid baggage. Before,
 * whatever the caller put in `_meta.baggage` (or the header) went upstream as it came: a
 * 1 MB value became a 1 MB upstream header or `_meta`, and CR/LF in it turned the call
 * into a misleading UPSTREAM_UNREACHABLE. Now invalid baggage (W3C Baggage syntax, at
 * most 8192 bytes and 180 list members) is dropped and the call goes on without it. A real
 * upstream HTTP server and a real upstream MCP server (SDK v2) record what they received.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const SPEC = (baseUrl: string, tracker: string): string => `
wrap "baggage" version="1.0.0"
base-url "${baseUrl}"
mcp-server "tracker" url="${tracker}"
can get thing {
    describe "One thing."
    path "/things/{id}" {
        id "string"
    }
}
can search issues {
    describe "Search issues."
    tool "tracker" "search_issues"
    args {
        query "string" required=#true
    }
}
`;

const members = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');

/** Baggage the W3C Baggage spec allows: forwarded exactly as sent. */
const VALID: Record<string, string> = {
  'one member': 'tenant=acme',
  'properties and optional white space': 'userId=alice%20x;prop1;prop2 = v2 , node=DF%2028',
  '180 members': members(180),
  '8192 bytes': `k=${'v'.repeat(8190)}`,
};

/** Baggage it does not: dropped, the call still made. */
const INVALID: Record<string, string> = {
  '1 MB': `k=${'v'.repeat(1 << 20)}`,
  'CR/LF': 'tenant=acme\r\nx-injected: yes',
  '181 members': members(181),
  '8193 bytes': `k=${'v'.repeat(8191)}`,
  'a space in a value': 'tenant=ac me',
  'a quote in a value': 'tenant="acme"',
  'no key': '=acme',
  'no =': 'tenant',
  'a key that is not a token': 'ténant=acme',
  'an empty member': 'a=1,,b=2',
  'nothing but white space': '  ',
};

let upstream: Upstream;
let tracker: RecordingServer;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  tracker = await startRecordingServer();
  gw = await startGateway(SPEC(upstream.url, tracker.url));
});

afterAll(async () => {
  await gw?.close();
  await tracker?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  tracker.received.length = 0;
});

/** The baggage each upstream received, if any: the HTTP header, the MCP `_meta.baggage`. */
const GRANTS = {
  get_thing: {
    args: { id: '7' },
    received: (): unknown => {
      expect(upstream.requests).toHaveLength(1);
      return upstream.requests[0]!.headers.baggage;
    },
  },
  search_issues: {
    args: { query: 'q' },
    received: (): unknown => {
      const calls = tracker.received.filter((r) => r.method === 'tools/call');
      expect(calls).toHaveLength(1);
      return (calls[0]!.params?._meta as Record<string, unknown> | undefined)?.baggage;
    },
  },
} as const;

/** A 2026-07-28 tools/call of `tool`, `baggage` in its `_meta`; the result it got. */
async function callWithMeta(tool: keyof typeof GRANTS, baggage: string): Promise<unknown> {
  const res = await postJson(
    `${gw.url}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: GRANTS[tool].args,
        _meta: { [META_VERSION]: MODERN, [META_CAPS]: {}, baggage },
      },
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
  );
  expect(res.status).toBe(200);
  return (res.json as { result?: unknown }).result;
}

describe.each(Object.keys(GRANTS) as (keyof typeof GRANTS)[])('a call of %s', (tool) => {
  it.each(Object.entries(VALID))(
    'passes _meta.baggage with %s on unchanged',
    async (_what, baggage) => {
      expect(await callWithMeta(tool, baggage)).toMatchObject({ isError: false });
      expect(GRANTS[tool].received()).toBe(baggage);
    },
  );

  it.each(Object.entries(INVALID))(
    'succeeds without passing on _meta.baggage with %s',
    async (_what, baggage) => {
      expect(await callWithMeta(tool, baggage)).toMatchObject({ isError: false });
      expect(GRANTS[tool].received()).toBeUndefined();
    },
  );
});

describe('the baggage header', () => {
  it('is passed on from a REST call when valid, and dropped when over 8192 bytes or malformed', async () => {
    const rest = (baggage: string) => postJson(`${gw.url}/api/get_thing`, { id: '7' }, { baggage });
    expect((await rest('tenant=acme')).status).toBe(200);
    expect(GRANTS.get_thing.received()).toBe('tenant=acme');
    for (const bad of [INVALID['8193 bytes']!, INVALID['a quote in a value']!]) {
      upstream.requests.length = 0;
      expect((await rest(bad)).status).toBe(200);
      expect(GRANTS.get_thing.received()).toBeUndefined();
    }
  });

  it('is dropped from an MCP call when malformed, the call made', async () => {
    const res = await postJson(
      `${gw.url}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_issues', arguments: { query: 'q' } },
      },
      { accept: 'application/json, text/event-stream', baggage: INVALID['181 members']! },
    );
    expect((res.json as { result?: unknown }).result).toMatchObject({ isError: false });
    expect(GRANTS.search_issues.received()).toBeUndefined();
  });
});
