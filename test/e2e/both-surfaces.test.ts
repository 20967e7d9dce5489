/**
 * One case table, run through both projections (as hono runs one suite against every
 * router): the engine decides, REST and MCP only translate. Each case names the
 * arguments sent, what each surface answers, and how many requests reach the upstream.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY, META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const SPEC = (baseUrl: string): string => `
wrap "both-surfaces" version="1.0.0"
base-url "${baseUrl}"
can list things {
    describe "Things, optionally of one owner."
    path "/things"
    query {
        owner "string"
        limit "integer" min=1 max=10
    }
}
`;

let upstream: Upstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  gw = await startGateway(SPEC(upstream.url));
});
afterEach(() => {
  upstream.requests.length = 0;
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** What a surface answered, reduced to what the cases compare. */
interface Answer {
  readonly status: number;
  /** 'ok', a catalogue code, or `jsonrpc <code>` for a JSON-RPC error. */
  readonly outcome: string;
}

/** `argsJson` is the arguments' JSON text, or undefined to send none at all. */
type Surface = (tool: string, argsJson: string | undefined) => Promise<Answer>;

const rest: Surface = async (tool, argsJson) => {
  const r = await postJson(`${gw.url}/api/${tool}`, argsJson ?? '');
  const error = (r.json as { error?: { code: string } }).error;
  return { status: r.status, outcome: error ? error.code : 'ok' };
};

function mcpAnswer(status: number, json: unknown): Answer {
  const m = json as {
    error?: { code: number };
    result?: { isError: boolean; content: { text: string }[] };
  };
  if (m.error) return { status, outcome: `jsonrpc ${m.error.code}` };
  const result = m.result!;
  if (!result.isError) return { status, outcome: 'ok' };
  return { status, outcome: result.content[0]!.text.split(':')[0]! };
}

/** A tools/call as text, so that `arguments` can be left out or be any JSON at all. */
function callText(tool: string, argsJson: string | undefined, meta?: string): string {
  const args = argsJson === undefined ? '' : `,"arguments":${argsJson}`;
  const m = meta === undefined ? '' : `,"_meta":${meta}`;
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)}${args}${m}}}`;
}

const mcpLegacy: Surface = async (tool, argsJson) => {
  const r = await postJson(`${gw.url}/mcp`, callText(tool, argsJson), {
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY,
  });
  return mcpAnswer(r.status, r.json);
};

const mcpModern: Surface = async (tool, argsJson) => {
  const meta = JSON.stringify({ [META_VERSION]: MODERN, [META_CAPS]: {} });
  const r = await postJson(`${gw.url}/mcp`, callText(tool, argsJson, meta), {
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  });
  return mcpAnswer(r.status, r.json);
};

interface Case {
  readonly what: string;
  readonly tool: string;
  readonly args: string | undefined;
  readonly rest: Answer;
  readonly mcp: Answer;
  readonly upstreamRequests: number;
}

const OK: Answer = { status: 200, outcome: 'ok' };

/**
 * The arguments object: absent means none; `null` is not absence (MCP's schema makes
 * `arguments` an optional object), so it is refused like every other non-object.
 */
const ARGUMENTS: readonly Case[] = [
  { what: 'absent', tool: 'list_things', args: undefined, rest: OK, mcp: OK, upstreamRequests: 1 },
  {
    what: 'an empty object',
    tool: 'list_things',
    args: '{}',
    rest: OK,
    mcp: OK,
    upstreamRequests: 1,
  },
  ...(['null', '[]', '[{"owner":"acme"}]', '"owner=acme"', '42', 'true'] as const).map(
    (args): Case => ({
      what: args,
      tool: 'list_things',
      args,
      rest: { status: 400, outcome: 'INVALID_ARGUMENTS' },
      mcp: { status: 200, outcome: 'jsonrpc -32602' },
      upstreamRequests: 0,
    }),
  ),
];

const SURFACES = [
  ['REST', rest, (c: Case) => c.rest],
  ['MCP 2025-11-25', mcpLegacy, (c: Case) => c.mcp],
  ['MCP 2026-07-28', mcpModern, (c: Case) => c.mcp],
] as const;

describe.each(SURFACES)('over %s', (_name, surface, expected) => {
  it.each(ARGUMENTS.map((c) => [c.what, c] as const))(
    'answers a call whose arguments are %s as the engine decides',
    async (_what, c) => {
      const answer = await surface(c.tool, c.args);
      expect(answer).toEqual(expected(c));
      expect(upstream.requests).toHaveLength(c.upstreamRequests);
    },
  );
});
