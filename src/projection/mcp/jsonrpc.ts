/**
 * JSON-RPC 2.0 framing, written as text: result payloads are often precompiled JSON.
 * Error replies take their HTTP status and JSON-RPC code from the error catalogue.
 */
import { rpcFraming, type RpcErrorCode } from '../../engine/error-catalogue.js';

export type RpcId = string | number | null;

/** A response: HTTP status plus the JSON-RPC message text (empty for 202), or its bytes. */
export interface RpcReply {
  readonly status: number;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A refusal's or failure's code (a JSON-RPC error's catalogue or protocol code, an
   * isError result's catalogue code): the request span's `error.type` and the operation
   * histogram's (telemetry/operation-histograms.ts). A constant string, so it costs the reply nothing.
   */
  readonly errorType?: string;
}

export function resultText(id: RpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

const RESULT_CLOSE = Buffer.from('}');

/** `resultText` for a result kept as bytes (precompiled lists): no string is built or encoded. */
export function resultBytes(id: RpcId, result: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`),
    result,
    RESULT_CLOSE,
  ]);
}

export function errorText(id: RpcId, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(error)}}`;
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
  id: RpcId,
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

/** A valid JSON-RPC id: string, or an integer (protocol: ids are never null in requests). */
export function isValidId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
