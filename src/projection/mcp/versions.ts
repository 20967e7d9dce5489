/** Protocol revisions served on one endpoint (protocol.md, "One endpoint, two eras"). */

export const MODERN_VERSIONS = ['2026-07-28'] as const;
/** Newest first: the first is the counter-offer to an initialize we do not know. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const ALL_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export function isModernVersion(v: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isLegacyVersion(v: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(v);
}
