/**
 * JSON-RPC 2.0 as MCP uses it, for both sides: ids, and the response framing written as
 * text (result payloads are often precompiled JSON).
 */
import { bytesOfParts } from '../json/text-parts.js';

/** A request's id: a string or a number (the protocol never sends null in a request). */
export type RpcId = string | number;
/** A response's id: its request's, or null for a message that could not be read as one. */
export type ReplyId = RpcId | null;

export function resultText(id: ReplyId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

const RESULT_CLOSE = Buffer.from('}');

/** `resultText` for a result kept as bytes (precompiled lists): no string is built or encoded. */
export function resultBytes(id: ReplyId, result: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`),
    result,
    RESULT_CLOSE,
  ]);
}

/** `resultText` of a result given in parts (a large one), written as bytes from them. */
export function resultFromParts(id: ReplyId, parts: readonly string[]): Buffer {
  return bytesOfParts([`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, ...parts, '}']);
}

export function errorText(id: ReplyId, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(error)}}`;
}

/** A valid JSON-RPC id: string, or an integer (protocol: ids are never null in requests). */
export function isValidId(id: unknown): id is RpcId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
