/**
 * One MCP tool call, in either protocol era, the two ways the tests make it:
 *
 * - `callTool`: as an agent does, through the official SDK v2 client
 *   (@modelcontextprotocol/client): connect, call, close. The SDK checks the answer
 *   against its own schemas, so a result shape it refuses fails the test.
 * - `postToolCall`: the JSON-RPC request written out and POSTed as is, for the tests that
 *   read the answer's bytes, status or headers (a leak in any spelling, a 401 challenge).
 *
 * `modern` is 2026-07-28 (`_meta` in params, mirrored Mcp-Method / Mcp-Name headers),
 * `legacy` 2025-11-25 (the SDK runs the initialize handshake; the written-out request
 * needs none, the gateway being stateless). `key` goes as `Authorization: Bearer <key>`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { postJson } from './gateway.js';
import { LEGACY, META_CAPS, META_VERSION, MODERN } from './mcp-wire.js';

export type Era = 'modern' | 'legacy';

export interface CallOptions {
  era?: Era;
  /** An API key or token, sent as a bearer credential. */
  key?: string;
}

/** What the tests read of a tools/call result. */
export interface ToolResult<S = unknown> {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: S;
}

const bearer = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { authorization: `Bearer ${key}` };

/** `tool` called with `args` on the gateway at `url` by the SDK v2 client; its result. */
export async function callTool<S = unknown>(
  url: string,
  tool: string,
  args: Record<string, unknown> = {},
  { era = 'modern', key }: CallOptions = {},
): Promise<ToolResult<S>> {
  const client = new Client(
    { name: 'mcp-beaver-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: bearer(key) },
    }),
  );
  try {
    return (await client.callTool({ name: tool, arguments: args })) as ToolResult<S>;
  } finally {
    await client.close();
  }
}

/**
 * The same call as one POST /mcp of the JSON-RPC request; the answer as it came (status,
 * headers, text, parsed JSON). `headers` are sent besides, after the era's own.
 */
export function postToolCall(
  url: string,
  tool: string,
  args: unknown = {},
  { era = 'modern', key, headers = {} }: CallOptions & { headers?: Record<string, string> } = {},
): ReturnType<typeof postJson> {
  const params = { name: tool, arguments: args };
  const modern = era === 'modern';
  return postJson(
    `${url}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: modern ? { ...params, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } } : params,
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern ? MODERN : LEGACY,
      ...(modern && { 'mcp-method': 'tools/call', 'mcp-name': tool }),
      ...bearer(key),
      ...headers,
    },
  );
}
