/**
 * 2026-07-28 mirrored headers: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` repeat
 * what the body says so intermediaries can route without parsing it. The body is the
 * source of truth: a header that is missing or disagrees is rejected (-32020), never
 * preferred. `Mcp-Name` may arrive as `=?base64?<b64 of UTF-8>?=` and is decoded first.
 */
import { clipped, MAX_QUOTED_URI } from '../../engine/refusal-text.js';

/** Refuses malformed UTF-8 instead of replacing it. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const PREFIX = '=?base64?';
const SUFFIX = '?=';

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

/** Which body field `Mcp-Name` mirrors, per method. */
export const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

export type HeaderCheck = { ok: true } | { ok: false; message: string };

export function checkMirroredHeaders(
  headers: Record<string, string | string[] | undefined>,
  method: string,
  params: Record<string, unknown> | undefined,
): HeaderCheck {
  const m = singleHeaderValue(headers['mcp-method']);
  if (m === undefined) return { ok: false, message: 'missing Mcp-Method header' };
  if (m !== method)
    return {
      ok: false,
      message: `Mcp-Method header ${quoted(m)} does not match the body method ${quoted(method)}`,
    };
  // Own keys only: a method named `__proto__` or `constructor` must not find Object.prototype.
  const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (source === undefined) return { ok: true };
  const n = decodeHeaderValue(headers['mcp-name']);
  const bodyName = params?.[source];
  if (n === undefined) return { ok: false, message: 'missing Mcp-Name header' };
  if (n !== bodyName)
    return {
      ok: false,
      message: `Mcp-Name header ${quoted(n)} does not match params.${source} ${quoted(bodyName)}`,
    };
  return { ok: true };
}

/**
 * A header or body value as the refusal shows it, clipped: it comes before anything is
 * checked, and params.uri may be megabytes (or an object of 100,000 keys).
 */
function quoted(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(clipped(v, MAX_QUOTED_URI));
  if (v === undefined) return '(absent)';
  return `(${v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`})`;
}
