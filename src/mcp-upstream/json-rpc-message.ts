/**
 * JSON-RPC 2.0 messages from an upstream, classified without trusting them: an id we
 * did not send, a result that is not an object, an error without a numeric code are
 * all "not MCP" rather than exceptions.
 */
import type { RpcId } from '../mcp-wire/json-rpc.js';
import { NumberTexts, stringifyJson } from '../json/number-text.js';
import type { UpstreamReply } from './rpc-channel.js';
import { capText } from './upstream-outcome.js';

export type IncomingMessage =
  | { readonly kind: 'response'; readonly id: RpcId; readonly reply: UpstreamReply }
  | { readonly kind: 'notification'; readonly method: string; readonly params?: unknown }
  | { readonly kind: 'request'; readonly id: RpcId; readonly method: string }
  | { readonly kind: 'invalid'; readonly why: string };

export function classifyMessage(value: unknown): IncomingMessage {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { kind: 'invalid', why: 'a JSON-RPC message is an object' };
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0')
    return { kind: 'invalid', why: 'the message does not say jsonrpc "2.0"' };
  const id = m.id;
  const hasId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof m.method === 'string') {
    return hasId
      ? { kind: 'request', id: id as RpcId, method: m.method }
      : { kind: 'notification', method: m.method, params: m.params };
  }
  if (!hasId) {
    // An error about a request the server could not read carries id null.
    if (id === null && 'error' in m) return { kind: 'invalid', why: errorText(m.error) };
    return { kind: 'invalid', why: 'a response without an id' };
  }
  return { kind: 'response', id: id as RpcId, reply: replyOf(m) };
}

/** A response's result or error as a reply. */
export function replyOf(m: Record<string, unknown>): UpstreamReply {
  if ('error' in m) {
    const e = m.error as Record<string, unknown> | null;
    if (e && typeof e === 'object' && typeof e.code === 'number') {
      return {
        kind: 'failed',
        error: {
          kind: 'rpc-error',
          code: e.code,
          // Whole here: it is redacted before it is cut (upstream-tools.ts).
          message: typeof e.message === 'string' ? e.message : '',
          ...(e.data !== undefined && { data: e.data }),
        },
      };
    }
    return notMcp('the upstream sent an error without a numeric code');
  }
  const result = m.result;
  if (result === null || typeof result !== 'object' || Array.isArray(result))
    return notMcp('the upstream sent a result that is not an object');
  return { kind: 'result', result: result as Record<string, unknown> };
}

export function notMcp(message: string): UpstreamReply {
  return { kind: 'failed', error: { kind: 'protocol', message } };
}

function errorText(error: unknown): string {
  const message =
    error && typeof error === 'object' ? (error as { message?: unknown }).message : undefined;
  return `the upstream could not read a request${typeof message === 'string' ? `: ${capText(message, 200)}` : ''}`;
}

/** A message as sent: its `params` with the caller's text of their numbers, where kept. */
export function messageText(message: Record<string, unknown>, paramTexts?: NumberTexts): string {
  return stringifyJson(message, NumberTexts.withMember(undefined, 'params', paramTexts));
}
