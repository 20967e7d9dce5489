/**
 * The 2026-07-28 mirrored headers' values, for both sides: `Mcp-Name` mirrors
 * `params.name` (tools/call, prompts/get) or `params.uri` (resources/read), and a value
 * HTTP cannot carry travels as `=?base64?<b64 of UTF-8>?=`. The server checks them
 * (projection/mcp/mirrored-headers.ts); a client writes them.
 */

/** Refuses malformed UTF-8 instead of replacing it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const PREFIX = '=?base64?';
const SUFFIX = '?=';

/** Which body field `Mcp-Name` mirrors, per method. */
export const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The value `Mcp-Name` carries for a request, when its method has one and it is a string. */
export function mcpNameOf(method: string, params: Record<string, unknown>): string | undefined {
  // Own keys only: a method named `__proto__` or `constructor` must not find Object.prototype.
  const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const v = source === undefined ? undefined : params[source];
  return typeof v === 'string' ? v : undefined;
}

/**
 * A header value as the protocol spells it: plain when it is printable ASCII without
 * edge spaces, else `=?base64?<UTF-8 as base64>?=` (also a value that looks like one).
 */
export function encodeHeaderValue(s: string): string {
  const plain =
    s.length > 0 &&
    s === s.trim() &&
    !(s.startsWith(PREFIX) && s.endsWith(SUFFIX)) &&
    /^[\x20-\x7e\t]*$/.test(s);
  return plain ? s : `${PREFIX}${Buffer.from(s, 'utf8').toString('base64')}${SUFFIX}`;
}

/** A header that must appear once, as plain text (`MCP-Protocol-Version`, `Mcp-Method`). */
export function singleHeaderValue(raw: string | string[] | undefined): string | undefined {
  if (Array.isArray(raw)) return raw.length === 1 ? raw[0] : undefined;
  return raw;
}

/**
 * `Mcp-Name` (and `Mcp-Param-*`): plain, or `=?base64?...?=` for values HTTP cannot carry.
 * Decoded, or undefined when absent or malformed.
 */
export function decodeHeaderValue(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const v = Array.isArray(raw) ? (raw.length === 1 ? raw[0]! : undefined) : raw;
  if (v === undefined) return undefined;
  if (!(v.startsWith(PREFIX) && v.endsWith(SUFFIX))) return v;
  const b64 = v.slice(PREFIX.length, v.length - SUFFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
