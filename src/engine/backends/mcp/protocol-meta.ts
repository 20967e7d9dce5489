/**
 * The wire names of both protocol eras as an upstream expects them from a client
 * (docs/protocol.md describes the same from the server's side).
 */
export const MODERN_VERSION = '2026-07-28';
/** Offered in `initialize`; an upstream may answer with an older version it prefers. */
export const LEGACY_VERSION = '2025-11-25';
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';

export const CLIENT_INFO = { name: 'mcp-beaver', version: '0.1.0' } as const;

/**
 * The 2026-07-28 `Mcp-Name` header mirrors `params.name` (tools/call, prompts/get) or
 * `params.uri` (resources/read).
 */
export function mcpNameOf(method: string, params: Record<string, unknown>): string | undefined {
  const v =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * A header value as the protocol spells it: plain when it is printable ASCII without
 * edge spaces, else `=?base64?<UTF-8 as base64>?=` (also a value that looks like one).
 */
export function headerValue(s: string): string {
  const plain =
    s.length > 0 &&
    s === s.trim() &&
    !(s.startsWith('=?base64?') && s.endsWith('?=')) &&
    /^[\x20-\x7e\t]*$/.test(s);
  return plain ? s : `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}
