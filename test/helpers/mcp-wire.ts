/**
 * MCP wire strings as the protocol spells them, written out here (not imported from
 * src/) so the tests pin the protocol rather than our own constants.
 */
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER = 'io.modelcontextprotocol/serverInfo';
