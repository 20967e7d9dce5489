/**
 * The protocol version a request is served in, read without trusting the caller: only a
 * version this gateway serves comes out, so a made-up one never becomes a metric label or
 * a span attribute (operation-of.ts, request-span.ts).
 */
import { singleHeaderValue } from '../../mcp-wire/header-values.js';
import { ALL_VERSIONS, META_PROTOCOL_VERSION } from '../../mcp-wire/versions.js';

/** A plain object's own field, or undefined for anything else. */
export function field(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)[key]
    : undefined;
}

function served(v: unknown): string | undefined {
  return typeof v === 'string' && ALL_VERSIONS.includes(v) ? v : undefined;
}

/**
 * The version a request is served in, when this gateway serves it: the body's claim
 * (2026-07-28), else the header, else what a legacy initialize asks for. Undefined for a
 * version the caller made up, so it never becomes a label or a span attribute.
 */
export function servedVersionOf(
  method: unknown,
  params: unknown,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  return (
    served(field(field(params, '_meta'), META_PROTOCOL_VERSION)) ??
    served(singleHeaderValue(headers['mcp-protocol-version'])) ??
    (method === 'initialize' ? served(field(params, 'protocolVersion')) : undefined)
  );
}
