/**
 * One case table for the engine's guards, run through both projections (as hono runs
 * one suite against every router): the engine decides, REST and MCP only translate.
 * Each case names the arguments sent, the code both surfaces answer with, and how many
 * requests reach the upstream; the surfaces differ only in how they frame that code.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startJwks, type JwksServer } from '../helpers/jwks.js';
import { LEGACY, META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { GET_THING_GRANT } from '../helpers/spec-fixtures.js';

const READER_KEY = 'both_surfaces_reader_key_5d1c';
const OUTSIDER_KEY = 'both_surfaces_outsider_key_9a3e';

const SPEC = (baseUrl: string, jwks: JwksServer): string => `
wrap "both-surfaces" version="1.0.0"
base-url "${baseUrl}"
restrict {
    owner "acme" "acme-labs"
}
access {
    api-key env="KEY_READER" scopes="things:read"
    api-key env="KEY_OUTSIDER" scopes="other"
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
}
can list things {
    describe "Things, optionally of one owner."
    path "/things"
    query {
        owner "string"
        limit "integer" min=1 max=10
        count "integer"
        after "string"
        before "string"
        exclusive "after" "before"
    }
}
${GET_THING_GRANT}
can list secrets {
    describe "Things only a reader may list."
    path "/secrets"
    scope "things:read"
}
can list mine {
    describe "Things of the caller's organisation."
    path "/mine"
    query {
        owner "string" from-claim="org"
    }
}
`;

let upstream: Upstream;
let jwks: JwksServer;
let gw: TestGateway;

/** Who calls: two API keys (which carry no token claims) and tokens with an `org` claim. */
type Key = 'reader' | 'outsider' | 'member' | 'foreign member' | 'odd member';
const bearer = {} as Record<Key, string>;

beforeAll(async () => {
  upstream = await startUpstream();
  jwks = await startJwks();
  gw = await startGateway(SPEC(upstream.url, jwks), {
    env: { KEY_READER: READER_KEY, KEY_OUTSIDER: OUTSIDER_KEY },
  });
  const token = (org: unknown) => jwks.sign({ claims: { scope: 'things:read', org } });
  Object.assign(bearer, {
    reader: READER_KEY,
    outsider: OUTSIDER_KEY,
    member: await token('acme'),
    'foreign member': await token('evil'),
    'odd member': await token(42),
  });
});
afterEach(() => {
  upstream.requests.length = 0;
});
afterAll(async () => {
  await gw?.close();
  await jwks?.close();
  await upstream?.close();
});

/** What a surface answered, reduced to what the cases compare. */
interface Answer {
  readonly status: number;
  /** 'ok', a catalogue code, or `jsonrpc <code>` for a JSON-RPC error without one. */
  readonly outcome: string;
}

/** `argsJson` is the arguments' JSON text, or undefined to send none at all. */
type Surface = (tool: string, argsJson: string | undefined, key: Key) => Promise<Answer>;

const rest: Surface = async (tool, argsJson, key) => {
  const r = await postJson(`${gw.url}/api/${tool}`, argsJson ?? '', {
    authorization: `Bearer ${bearer[key]}`,
  });
  const error = (r.json as { error?: { code: string } }).error;
  return { status: r.status, outcome: error ? error.code : 'ok' };
};

function mcpAnswer(status: number, json: unknown): Answer {
  const m = json as {
    error?: { code: number; message: string };
    result?: { isError: boolean; content: { text: string }[] };
  };
  if (m.error) return { status, outcome: `jsonrpc ${m.error.code}` };
  const result = m.result!;
  if (!result.isError) return { status, outcome: 'ok' };
  // A tool failure's text starts with its code, so a model can act on it.
  return { status, outcome: result.content[0]!.text.split(':')[0]! };
}

/** A tools/call as text, so that `arguments` can be left out or be any JSON at all. */
function callText(tool: string, argsJson: string | undefined, meta?: string): string {
  const args = argsJson === undefined ? '' : `,"arguments":${argsJson}`;
  const m = meta === undefined ? '' : `,"_meta":${meta}`;
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)}${args}${m}}}`;
}

const mcpLegacy: Surface = async (tool, argsJson, key) => {
  const r = await postJson(`${gw.url}/mcp`, callText(tool, argsJson), {
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${bearer[key]}`,
    'mcp-protocol-version': LEGACY,
  });
  return mcpAnswer(r.status, r.json);
};

const mcpModern: Surface = async (tool, argsJson, key) => {
  const meta = JSON.stringify({ [META_VERSION]: MODERN, [META_CAPS]: {} });
  const r = await postJson(`${gw.url}/mcp`, callText(tool, argsJson, meta), {
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${bearer[key]}`,
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
  readonly key?: Key;
  /** The code both surfaces answer with, or 'ok'. */
  readonly code: string;
  /** REST's status. */
  readonly status: number;
  /** MCP's answer where it is not a tool result (a refused call). */
  readonly mcp?: Answer;
  readonly upstreamRequests: number;
}

/** How MCP frames a case: a tool result (200) unless the case says it refuses the call. */
const mcpExpected = (c: Case): Answer => c.mcp ?? { status: 200, outcome: c.code };
const restExpected = (c: Case): Answer => ({ status: c.status, outcome: c.code });

const OK = { code: 'ok', status: 200, upstreamRequests: 1 } as const;

const CASES: readonly Case[] = [
  // The arguments object: absent means none; `null` is not absence (MCP's schema makes
  // `arguments` an optional object), so it is refused like every other non-object.
  { what: 'no arguments at all', tool: 'list_things', args: undefined, ...OK },
  { what: 'an empty arguments object', tool: 'list_things', args: '{}', ...OK },
  ...['null', '[]', '[{"owner":"acme"}]', '"owner=acme"', '42', 'true'].map((args): Case => ({
    what: `arguments that are ${args}`,
    tool: 'list_things',
    args,
    code: 'INVALID_ARGUMENTS',
    status: 400,
    mcp: { status: 200, outcome: 'jsonrpc -32602' },
    upstreamRequests: 0,
  })),
  // validate: the input schema.
  { what: 'arguments within the schema', tool: 'list_things', args: '{"limit":5}', ...OK },
  ...[
    ['a value above max', '{"limit":11}'],
    ['a string for an integer', '{"limit":"5"}'],
    ['an undeclared argument', '{"colour":"red"}'],
  ].map(([what, args]): Case => ({
    what: what!,
    tool: 'list_things',
    args,
    code: 'INVALID_ARGUMENTS',
    status: 400,
    upstreamRequests: 0,
  })),
  // exact numbers: an integer a double would round.
  {
    what: 'an integer a double cannot hold',
    tool: 'list_things',
    args: '{"count":9007199254740993}',
    code: 'INVALID_ARGUMENTS',
    status: 400,
    upstreamRequests: 0,
  },
  // exclusive groups.
  {
    what: 'two arguments of an exclusive group',
    tool: 'list_things',
    args: '{"after":"a","before":"b"}',
    code: 'EXCLUSIVE_ARGUMENTS',
    status: 400,
    upstreamRequests: 0,
  },
  { what: 'one argument of an exclusive group', tool: 'list_things', args: '{"after":"a"}', ...OK },
  // restrict: the top-level allowlist, in the query and in the path.
  { what: 'an allowed owner', tool: 'list_things', args: '{"owner":"acme"}', ...OK },
  ...[
    ['an owner outside restrict', 'list_things', '{"owner":"evil"}'],
    ['a path owner outside restrict', 'get_thing', '{"owner":"evil","id":"1"}'],
  ].map(([what, tool, args]): Case => ({
    what: what!,
    tool: tool!,
    args,
    code: 'DENIED_BY_RESTRICT',
    status: 403,
    upstreamRequests: 0,
  })),
  // metachar: a path value that would change the upstream path.
  { what: 'a plain path value', tool: 'get_thing', args: '{"owner":"acme","id":"7"}', ...OK },
  ...['../admin', 'a/b', '%2e%2e', 'x?y=1', 'x#y'].map((id): Case => ({
    what: `the path value ${id}`,
    tool: 'get_thing',
    args: JSON.stringify({ owner: 'acme', id }),
    code: 'PATH_VALUE_REJECTED',
    status: 400,
    upstreamRequests: 0,
  })),
  // scopes: the call itself is refused, with the challenge (MCP: a JSON-RPC error, 403).
  { what: 'a caller holding the scope', tool: 'list_secrets', args: '{}', ...OK },
  {
    what: 'a caller without the scope',
    tool: 'list_secrets',
    args: '{}',
    key: 'outsider',
    code: 'INSUFFICIENT_SCOPE',
    status: 403,
    mcp: { status: 403, outcome: 'jsonrpc -32600' },
    upstreamRequests: 0,
  },
  {
    what: 'a caller without the scope, with arguments that are not an object',
    tool: 'list_secrets',
    args: '"x"',
    key: 'outsider',
    code: 'INVALID_ARGUMENTS',
    status: 400,
    mcp: { status: 200, outcome: 'jsonrpc -32602' },
    upstreamRequests: 0,
  },
  // claims: bound from the token, then held to the same allowlist as a caller's value.
  {
    what: 'a token whose claim fills a from-claim argument',
    tool: 'list_mine',
    args: '{}',
    key: 'member',
    ...OK,
  },
  ...(
    [
      ['a caller without the claim (an API key)', 'reader'],
      ['a claim of the wrong type', 'odd member'],
    ] as const
  ).map(([what, key]): Case => ({
    what,
    tool: 'list_mine',
    args: '{}',
    key,
    code: 'MISSING_CLAIM',
    status: 403,
    upstreamRequests: 0,
  })),
  {
    what: 'a claim outside restrict',
    tool: 'list_mine',
    args: '{}',
    key: 'foreign member',
    code: 'DENIED_BY_RESTRICT',
    status: 403,
    upstreamRequests: 0,
  },
  // An unknown tool: found by neither surface (MCP: -32602 in a 200).
  {
    what: 'a tool no grant has',
    tool: 'no_such_tool',
    args: '{}',
    code: 'UNKNOWN_TOOL',
    status: 404,
    mcp: { status: 200, outcome: 'jsonrpc -32602' },
    upstreamRequests: 0,
  },
];

const SURFACES = [
  ['REST', rest, restExpected],
  ['MCP 2025-11-25', mcpLegacy, mcpExpected],
  ['MCP 2026-07-28', mcpModern, mcpExpected],
] as const;

describe.each(SURFACES)('over %s', (_name, surface, expected) => {
  it.each(CASES.map((c) => [c.what, c] as const))(
    'answers a call with %s as the engine decides, and sends upstream only what it lets through',
    async (_what, c) => {
      const answer = await surface(c.tool, c.args, c.key ?? 'reader');
      expect(answer).toEqual(expected(c));
      expect(upstream.requests).toHaveLength(c.upstreamRequests);
    },
  );
});
