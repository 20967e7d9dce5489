/**
 * The HTTP reply to one JSON-RPC message. Error replies take their HTTP status and
 * JSON-RPC code from the error catalogue's MCP table (rpc-codes.ts); the framing is the wire's (mcp-wire/json-rpc.ts).
 */
import { rpcFraming, type RpcErrorCode } from './rpc-codes.js';
import { errorText, type ReplyId } from '../../mcp-wire/json-rpc.js';
import type { ConfirmAnswer, QuestionTicket } from './open-questions.js';

/** A response: HTTP status plus the JSON-RPC message text (empty for 202), or its bytes. */
export interface RpcReply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Bytes of an answer otherwise sent as text (a large tools/call result): labelled as text is, with its charset. */
  readonly jsonText?: true;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A refusal's or failure's code (a JSON-RPC error's catalogue or protocol code, an
   * isError result's catalogue code): the request span's `error.type` and the operation
   * histogram's (telemetry/operation-histograms.ts). A constant string, so it costs the reply nothing.
   */
  readonly errorType?: string;
  /**
   * A 2025-era question the route answers as an SSE stream (question-stream.ts), the body
   * then empty; only an HTTP route with open questions makes one.
   */
  readonly question?: AskedQuestion;
}

export interface RpcErrorOptions {
  /** JSON-RPC `error.data`. */
  readonly data?: unknown;
  /** A 2025-11-25-or-older client, where its status differs (an unknown method is a 200). */
  readonly legacy?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The JSON-RPC error reply for a catalogue code: status and code from its row. */
export function rpcError(
  code: RpcErrorCode,
  id: ReplyId,
  message: string,
  opts: RpcErrorOptions = {},
): RpcReply {
  const framing = rpcFraming(code, opts.legacy ?? false);
  const body = errorText(id, framing.rpc, message, opts.data);
  return opts.headers
    ? { status: framing.status, body, headers: opts.headers, errorType: code }
    : { status: framing.status, body, errorType: code };
}

export const ACCEPTED: RpcReply = { status: 202, body: '' };

/** A question put on the POST's stream, and what carries the call on once it is answered. */
export interface AskedQuestion {
  readonly ticket: QuestionTicket;
  /** The `elicitation/create` request, as its JSON text. */
  readonly request: string;
  /** The engine's retry with the user's answer: the response to the original request. */
  resume(answer: ConfirmAnswer): Promise<RpcReply>;
  /** The response when the wait ended with no answer (the bound, a shutdown). */
  unanswered(kind: 'timeout' | 'shutdown' | 'internal'): string;
  /** The audit line of a question dropped without an answer. */
  abandoned(reason: string): void;
}
