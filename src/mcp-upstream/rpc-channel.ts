/**
 * One JSON-RPC conversation with an upstream MCP server, whatever carries it (a stdio
 * child, or POSTs over Streamable HTTP). The session above it (upstream-session.ts)
 * adds the protocol era; a channel only moves messages and says when the peer has
 * forgotten us (its `epoch` moves on), so the session knows to shake hands again.
 */
import type { Cancellation } from '../outbound/cancellation.js';
import type { NumberTexts } from '../json/number-text.js';
import type { UpstreamFailure } from './upstream-outcome.js';

/**
 * An upstream's answer to one request, as its client reads it (the gateway's own HTTP
 * reply to a caller is projection/mcp/rpc-reply.ts).
 */
export type UpstreamReply =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'failed'; readonly error: UpstreamFailure }
  /**
   * The upstream no longer knows the session this request was sent on (HTTP 404, or a
   * 400 naming the session). The request was not served; whether to send it again on a
   * new session is the caller's choice (a write is never sent twice).
   */
  | { readonly kind: 'session-lost'; readonly message: string };

export interface RequestOptions {
  /** What is left of the call's deadline, in milliseconds. */
  readonly timeoutMs: number;
  readonly cancel?: Cancellation | undefined;
  /**
   * The caller's text of numbers inside `params` (number-text.ts), so a grant's
   * arguments reach the upstream as written (12345678901234567890 not rounded).
   */
  readonly texts?: NumberTexts | undefined;
  /**
   * Headers of this request only (lower-case names): a token kind's credential for the
   * call's caller, over HTTP (the stdio channel has no headers and ignores them).
   */
  readonly headers?: readonly (readonly [string, string])[] | undefined;
}

/** A message the upstream sent on its own: a notification such as `notifications/tools/list_changed`. */
export interface UpstreamNotification {
  readonly method: string;
  readonly params?: unknown;
}

export interface RpcChannel {
  /**
   * Changes whenever the peer starts afresh (a new child process, a session the server
   * forgot): state negotiated on an older epoch is gone.
   */
  readonly epoch: number;
  request(
    method: string,
    params: Record<string, unknown>,
    o: RequestOptions,
  ): Promise<UpstreamReply>;
  /** Sends a notification; best effort, never fails the caller. */
  notify(
    method: string,
    params: Record<string, unknown> | undefined,
    o: RequestOptions,
  ): Promise<void>;
  /**
   * For the HTTP channel: the negotiated 2025-era version and that a session is in
   * place, so later requests carry `MCP-Protocol-Version` (and the session id). The stdio
   * channel has nothing to mirror.
   */
  legacyVersion(version: string | undefined): void;
  close(): Promise<void>;
}
