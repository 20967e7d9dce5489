/** JSON-RPC 2.0 framing, written as text: result payloads are often precompiled JSON. */

export type RpcId = string | number | null;

export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** 2026-07-28: a mirrored header disagrees with the body, or is missing. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the protocol version is not one this endpoint serves. */
  UNSUPPORTED_VERSION: -32022,
} as const;

/** A response: HTTP status plus the JSON-RPC message text (empty for 202), or its bytes. */
export interface RpcReply {
  readonly status: number;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
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

export function errorReply(
  status: number,
  id: RpcId,
  code: number,
  message: string,
  data?: unknown,
): RpcReply {
  return { status, body: errorText(id, code, message, data) };
}

export const ACCEPTED: RpcReply = { status: 202, body: '' };

/** A valid JSON-RPC id: string, or an integer (protocol: ids are never null in requests). */
export function isValidId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
