/**
 * The protocol revisions and `_meta` keys of MCP, for both sides: the gateway serving
 * `/mcp` (protocol.md, "One endpoint, two eras") and its clients of upstream servers
 * and of `mcp-beaver call`.
 */

/** The protocol era a message belongs to: 2026-07-28, or 2025-11-25 and earlier. */
export type Era = 'modern' | 'legacy';

export const MODERN_VERSIONS = ['2026-07-28'] as const;
/** Newest first: the first is the counter-offer to an initialize we do not know. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const ALL_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** The modern revision a client pins or claims. */
export const MODERN_VERSION = MODERN_VERSIONS[0];
/** The legacy revision a client offers in `initialize`; a server may answer with an older one. */
export const LEGACY_VERSION = LEGACY_VERSIONS[0];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export function isModernVersion(v: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isLegacyVersion(v: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(v);
}
