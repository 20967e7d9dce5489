/**
 * 2026-07-28 mirrored headers: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` repeat
 * what the body says so intermediaries can route without parsing it. The body is the
 * source of truth: a header that is missing or disagrees is rejected (-32020), never
 * preferred. `Mcp-Name` may arrive as `=?base64?<b64 of UTF-8>?=` and is decoded first
 * (mcp-wire/header-values.ts).
 */
import { clipped, MAX_QUOTED_URI } from '../../engine/refusal-text.js';
import { decodeHeaderValue, NAME_SOURCE, singleHeaderValue } from '../../mcp-wire/header-values.js';

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
