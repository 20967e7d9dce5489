/**
 * What a call to an upstream MCP server comes to, as a value: the connection layer never
 * throws at the gateway (a child that misbehaves costs one call an error, not the
 * process). The kinds are ours; the backend kind maps them to catalogue codes later
 * (spec-language.md, "Upstream MCP servers": UPSTREAM_TOOL_ERROR, UPSTREAM_ERROR,
 * UPSTREAM_TIMEOUT, UPSTREAM_UNAVAILABLE, UPSTREAM_PROTOCOL).
 */

/**
 * Each kind with our message about it: `tool-error`, the tool ran and said `isError:
 * true` (its text, at most TOOL_ERROR_TEXT_BYTES); `timeout`, no answer within the
 * call's deadline; `unavailable`, no connection, a dead or restarting child, or the
 * caller went away (worth a retry); `protocol`, an answer that is not MCP (or one we do
 * not relay, such as `input_required`). `rpc-error`: the upstream answered with a
 * JSON-RPC error, its code and data kept.
 */
export type UpstreamFailure =
  | {
      readonly kind: 'tool-error' | 'timeout' | 'unavailable' | 'protocol';
      readonly message: string;
      /**
       * 401: the upstream refused the credential sent with this call's own headers (a
       * token kind's), so the caller may ask its identity for a fresh one.
       */
      readonly status?: 401;
    }
  | {
      readonly kind: 'rpc-error';
      readonly code: number;
      readonly message: string;
      readonly data?: unknown;
    };

export type FailureKind = UpstreamFailure['kind'];

export type UpstreamOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: UpstreamFailure };

/** The upstream's share of a tool error's text (the contract's 2 KB). */
export const TOOL_ERROR_TEXT_BYTES = 2048;
/** An upstream's JSON-RPC error message is quoted up to this many bytes. */
export const RPC_MESSAGE_BYTES = 2048;

export function failed(
  kind: 'timeout' | 'unavailable' | 'protocol',
  message: string,
): { readonly ok: false; readonly error: UpstreamFailure } {
  return { ok: false, error: { kind, message } };
}

/** `text` cut to at most `maxBytes` of UTF-8, on a character boundary, marked when cut. */
export function capText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8').subarray(0, Math.max(0, maxBytes - 3));
  // Decoding drops nothing but may end in a replacement mark for a cut character.
  return `${bytes.toString('utf8').replace(/\uFFFD$/, '')}…`;
}
